import type { LoggerService } from '@nestjs/common';
import type { RecordedEvent, SubscriptionOptions } from '@mm/platform/event-store';

/**
 * Logs a subscription's failures once each: the subscription reports a handler
 * failure with its event, then again from its poll loop without one.
 */
export function logSubscriptionErrors(
  logger: LoggerService,
  name: string,
  failed: string,
): SubscriptionOptions['onError'] {
  let lastHandlerError: unknown;
  return (error: unknown, event?: RecordedEvent) => {
    if (event) lastHandlerError = error;
    else if (error === lastHandlerError) return;
    const what = event ? `${event.type} ${event.eventId}: ${failed}` : 'reading the log failed';
    logger.error(`${name}: ${what}`, error instanceof Error ? error.stack : JSON.stringify(error));
  };
}
