// A process started by another (start:distributed's services, the test
// suite's platforms) must not outlive it, even when the parent is killed with
// SIGKILL and runs no clean-up. The parent keeps a pipe to the child's stdin
// open and never writes to it: the kernel closes it when the parent dies,
// however it dies, and the child stops. Opt-in with MM_STOP_WHEN_STDIN_CLOSES,
// since a service under Kubernetes or a terminal has no such parent.

/** The variable a parent sets, with stdin a pipe of its own, to tie a child's life to its own. */
export const LIFELINE_VARIABLE = 'MM_STOP_WHEN_STDIN_CLOSES';

/**
 * Calls stop once stdin closes, when the parent asked for it (LIFELINE_VARIABLE=true). Returns whether it watches.
 * Data on stdin is read and ignored, so a parent that writes does not fill the pipe.
 */
export function stopWhenParentDies(stop: (reason: string) => void, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env[LIFELINE_VARIABLE] !== 'true') return false;
  const closed = () => stop('the parent process went away (stdin closed)');
  process.stdin.on('data', () => undefined);
  process.stdin.once('end', closed);
  process.stdin.once('error', closed);
  process.stdin.resume();
  return true;
}
