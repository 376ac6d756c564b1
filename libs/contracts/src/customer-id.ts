// Every route that names a customer refuses a value that is no customer id at all the same way (spec: Errors;
// Identifiers): 400 InvalidCustomerID, before anything is looked up.
import { isId } from '@mm/platform/ids';
import { ApiError } from './errors';

export function requireCustomerId(customerId: string): void {
  if (!isId('customer', customerId))
    throw new ApiError('InvalidCustomerID', `"${customerId.slice(0, 64)}" is not a customer id (cst_…)`);
}
