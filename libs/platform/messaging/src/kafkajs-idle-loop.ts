// kafkajs 2.2.4 (its latest release) spins on every broker connection: after each
// look at its queue of requests waiting to be sent, a connection schedules the
// next look, and with nothing waiting and no throttle the delay it computes is
// negative, which Node runs after 1 ms. Each connection of an idle consumer,
// producer or admin client thus wakes its process about a thousand times a
// second for nothing (kafkajs issues #1556 and #1704, unfixed upstream): a few
// percent of a core per idle pod, more with every connection. The look is only
// needed while requests wait: kafkajs itself looks again whenever it queues one
// and whenever an answer frees a place in flight, and a throttle it is told of
// still schedules its own look. So a connection with nothing waiting and no
// throttle running schedules nothing. Applied once, where this library first
// loads kafkajs; every client of the process shares the one class.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const RequestQueue = require('kafkajs/src/network/requestQueue') as {
  prototype: {
    pending: unknown[];
    throttledUntil: number;
    throttleCheckTimeoutId: unknown;
    scheduleCheckPendingRequests(): void;
  };
};

const PATCHED = Symbol.for('mm.kafkajs.idleLoop');

export function stopKafkajsIdleLoop(): void {
  const proto = RequestQueue.prototype as typeof RequestQueue.prototype & { [PATCHED]?: true };
  if (proto[PATCHED]) return;
  const schedule = proto.scheduleCheckPendingRequests;
  proto.scheduleCheckPendingRequests = function (this: typeof proto) {
    if (this.pending.length === 0 && this.throttledUntil <= Date.now()) return;
    schedule.call(this);
  };
  proto[PATCHED] = true;
}

stopKafkajsIdleLoop();
