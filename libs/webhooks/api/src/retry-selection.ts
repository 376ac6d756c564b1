import { ApiError } from '@mm/contracts';
import type { RetrySelection } from '@mm/webhooks/application';
import type { RetryDeliveriesRequest } from './webhooks.dto';

/** The deliveries a retry names: by ids, or by status with an optional creation range, never both. */
export function retrySelection(body: RetryDeliveriesRequest): RetrySelection {
  const byIds = body.deliveryIds !== undefined;
  if (byIds === (body.status !== undefined))
    throw new ApiError(
      'InvalidDeliveryRetry',
      'give either deliveryIds, or status with an optional createdAfter/createdBefore range',
    );
  if (byIds && (body.createdAfter !== undefined || body.createdBefore !== undefined))
    throw new ApiError('InvalidDeliveryRetry', 'createdAfter and createdBefore go with status, not with deliveryIds');
  return byIds
    ? { deliveryIds: body.deliveryIds! }
    : { status: body.status!, createdAfter: body.createdAfter, createdBefore: body.createdBefore };
}
