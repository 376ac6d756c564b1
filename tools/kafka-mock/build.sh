#!/usr/bin/env bash
# Builds the test Kafka broker into tools/kafka-mock/build/ (gitignored) with the
# system compiler.
#
#   build.sh           build/kafka-mock, on the system's librdkafka (librdkafka-dev,
#                      which .ci/run installs): the fallback where the patched build
#                      cannot be made.
#   build.sh patched   build/kafka-mock-patched, on the same librdkafka release built
#                      from Debian's source with the project's patches (mock-*.patch):
#                      a fetch's offset looked up from the end of the partition's log
#                      (the release walks it from its start, which over a long run takes
#                      most of a core), and a consumer group member's repeated request
#                      answered instead of aborting the broker, and a new member given an
#                      id of its own (the release reuses a freed member's). What the test suite and
#                      the fault run use where it can be built. Downloads the source once
#                      (checked by its SHA-256); needs curl and make.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p build
flags=(-std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror)

if [ "${1:-}" != patched ]; then
  if [ build/kafka-mock -nt kafka-mock.c ]; then exit 0; fi
  ${CC:-cc} "${flags[@]}" -o build/kafka-mock kafka-mock.c -lrdkafka
  exit 0
fi

version=2.0.2
sha256=f321bcb1e015a34114c83cf1aa7b99ee260236aab096b85c003170c90a47ca9d
source=build/librdkafka-$version
patches=(mock-lookup-from-end.patch mock-group-requests.patch mock-unique-member-ids.patch)
newer() { for f in "${@:2}"; do [ "$f" -nt "$1" ] && return 0; done; return 1; }
if [ -f build/kafka-mock-patched ] && ! newer build/kafka-mock-patched kafka-mock.c "${patches[@]}"; then
  exit 0
fi
if [ ! -f "$source/src/librdkafka.a" ] || newer "$source/src/librdkafka.a" "${patches[@]}"; then
  tarball=build/librdkafka_$version.orig.tar.gz
  if [ ! -f "$tarball" ]; then
    curl -fsSL -o "$tarball.part" "https://deb.debian.org/debian/pool/main/libr/librdkafka/librdkafka_$version.orig.tar.gz"
    mv "$tarball.part" "$tarball"
  fi
  echo "$sha256  $tarball" | sha256sum --check --quiet
  rm -rf "$source"
  tar -xzf "$tarball" -C build
  for p in "${patches[@]}"; do patch --quiet -d "$source" -p1 <"$p"; done
  # Only what the mock needs: no TLS, SASL, compression libraries or HTTP client.
  (cd "$source" && ./configure --disable-ssl --disable-gssapi --disable-zlib --disable-zstd --disable-curl \
    --disable-lz4-ext --disable-syslog >mock-configure.txt 2>&1) || {
    tail -20 "$source/mock-configure.txt" >&2
    exit 1
  }
  make -C "$source/src" -j"$(nproc)" librdkafka.a >"$source/mock-make.txt" 2>&1 || {
    tail -20 "$source/mock-make.txt" >&2
    exit 1
  }
fi
# kafka-mock.c includes <librdkafka/...>, as installed headers are laid out.
mkdir -p build/include/librdkafka
cp "$source/src/rdkafka.h" "$source/src/rdkafka_mock.h" build/include/librdkafka/
${CC:-cc} "${flags[@]}" -Ibuild/include -o build/kafka-mock-patched kafka-mock.c "$source/src/librdkafka.a" \
  -lpthread -lm -ldl -lrt
