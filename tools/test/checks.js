#!/usr/bin/env node
// npm test's first step: lint and typecheck side by side (each is one single-threaded process, so on two
// cores together they take the time of the longer), each one's output printed whole when it ends, in the
// order they end; fails when either fails.
const { spawn } = require('node:child_process');

function run(script) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    const started = Date.now();
    child.on('close', (code, signal) => {
      const text = Buffer.concat(output).toString();
      const ok = code === 0 && !signal;
      process.stdout.write(
        `${ok ? 'ok' : 'FAILED'}: npm run ${script} (${((Date.now() - started) / 1000).toFixed(1)} s)\n${text}${text && !text.endsWith('\n') ? '\n' : ''}`,
      );
      resolve(ok);
    });
  });
}

Promise.all((process.argv.length > 2 ? process.argv.slice(2) : ['lint', 'typecheck']).map(run)).then((results) => {
  process.exitCode = results.every(Boolean) ? 0 : 1;
});
