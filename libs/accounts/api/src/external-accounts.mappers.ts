import type { CounterpartyRow, ExternalAccountRow } from '@mm/accounts/infrastructure';
import type { CounterpartyResponse, ExternalAccountResponse } from './external-accounts.dto';

/** The current v1 instrument (spec: External account): `owner` only when a counterparty owns it. */
export function toExternalAccount(row: ExternalAccountRow): ExternalAccountResponse {
  return {
    id: row.id,
    object: 'externalAccount',
    type: row.type,
    status: row.status,
    customer: { id: row.customer_id, name: row.customer_name },
    ...(row.counterparty_id
      ? { owner: { kind: 'counterparty' as const, id: row.counterparty_id, name: row.counterparty_name ?? '' } }
      : {}),
    details: row.details as unknown as Record<string, unknown>,
    supportedDestinations: row.supported_destinations,
    failure: row.failure,
    label: row.label,
    metadata: row.metadata,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

export function toCounterparty(row: CounterpartyRow): CounterpartyResponse {
  return {
    id: row.id,
    object: 'counterparty',
    customerId: row.customer_id,
    entityType: row.entity_type,
    name: row.name,
    firstName: row.first_name,
    lastName: row.last_name,
    businessName: row.business_name,
    email: row.email,
    phone: row.phone,
    taxIdProvided: row.tax_id_provided,
    address: row.address,
    status: 'active',
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
