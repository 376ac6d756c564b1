#!/usr/bin/env bash
# Builds the test Kafka broker into tools/kafka-mock/build/ (gitignored) with the
# system compiler; needs librdkafka-dev (.ci/run installs it).
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p build
if [ build/kafka-mock -nt kafka-mock.c ]; then exit 0; fi
${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -o build/kafka-mock kafka-mock.c -lrdkafka
