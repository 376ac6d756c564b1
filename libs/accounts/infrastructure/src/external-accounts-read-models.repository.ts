// Read models of external accounts and counterparties. Every query takes the
// project id; reads join the customer's and the counterparty's current names
// (spec: the v1 instrument names its customer always, its owner when a
// counterparty owns it).
import { Injectable } from '@nestjs/common';
import type {
  CounterpartyAddress,
  CounterpartyEntityType,
  ExternalAccountDetails,
  ExternalAccountFailure,
  ExternalAccountStatus,
  ExternalAccountType,
  InstrumentDestination,
} from '@mm/contracts';
import { UnitOfWork } from '@mm/platform/database';

export interface ExternalAccountRow {
  id: string;
  project_id: string;
  customer_id: string;
  counterparty_id: string | null;
  type: ExternalAccountType;
  status: ExternalAccountStatus;
  details: ExternalAccountDetails;
  supported_destinations: InstrumentDestination[];
  provider_reference: string;
  failure: ExternalAccountFailure | null;
  label: string | null;
  metadata: Record<string, string>;
  version: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  /** Joined: the customer's current name. */
  customer_name: string;
  /** Joined: the owning counterparty's current name, when a counterparty owns it. */
  counterparty_name: string | null;
}

export interface CounterpartyRow {
  id: string;
  project_id: string;
  customer_id: string;
  entity_type: CounterpartyEntityType;
  first_name: string | null;
  last_name: string | null;
  business_name: string | null;
  name: string;
  email: string | null;
  phone: string | null;
  tax_id_provided: boolean;
  address: CounterpartyAddress | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export type NewExternalAccountRow = Omit<
  ExternalAccountRow,
  'created_at' | 'updated_at' | 'deleted_at' | 'customer_name' | 'counterparty_name' | 'failure' | 'status'
> & { at: string };

const SELECT_EXTERNAL_ACCOUNT = `
  SELECT e.*, c.first_name || ' ' || c.last_name AS customer_name, cp.name AS counterparty_name
    FROM accounts.external_accounts e
    JOIN accounts.customers c ON c.id = e.customer_id
    LEFT JOIN accounts.counterparties cp ON cp.id = e.counterparty_id`;

const COUNTERPARTY_COLUMNS: Record<string, string> = {
  firstName: 'first_name',
  lastName: 'last_name',
  businessName: 'business_name',
  email: 'email',
  phone: 'phone',
  taxIdProvided: 'tax_id_provided',
  address: 'address',
};

@Injectable()
export class ExternalAccountsReadModels {
  constructor(private readonly uow: UnitOfWork) {}

  async insertExternalAccount(a: NewExternalAccountRow): Promise<ExternalAccountRow> {
    await this.uow.query(
      `INSERT INTO accounts.external_accounts
         (id, project_id, customer_id, counterparty_id, type, status, details, supported_destinations, provider_reference, failure, label, metadata, version, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'pending', $6::jsonb, $7::jsonb, $8, NULL, $9, $10::jsonb, $11, $12, $12)`,
      [
        a.id,
        a.project_id,
        a.customer_id,
        a.counterparty_id,
        a.type,
        JSON.stringify(a.details),
        JSON.stringify(a.supported_destinations),
        a.provider_reference,
        a.label,
        JSON.stringify(a.metadata),
        a.version,
        a.at,
      ],
    );
    return (await this.externalAccount(a.project_id, a.id))!;
  }

  async setExternalAccountStatus(
    projectId: string,
    id: string,
    status: ExternalAccountStatus,
    failure: ExternalAccountFailure | null,
    version: number,
    at: string,
  ): Promise<ExternalAccountRow | undefined> {
    await this.uow.query(
      `UPDATE accounts.external_accounts SET status = $3, failure = $4::jsonb, version = $5, updated_at = $6 WHERE project_id = $1 AND id = $2`,
      [projectId, id, status, JSON.stringify(failure), version, at],
    );
    return this.externalAccount(projectId, id, { includeDeleted: true });
  }

  async updateExternalAccount(
    projectId: string,
    id: string,
    changes: { label?: string | null; metadata?: Record<string, string>; failure?: ExternalAccountFailure | null },
    version: number,
    at: string,
  ): Promise<ExternalAccountRow | undefined> {
    await this.uow.query(
      `UPDATE accounts.external_accounts
          SET label = CASE WHEN $3 THEN $4 ELSE label END,
              metadata = coalesce($5::jsonb, metadata),
              failure = CASE WHEN $6 THEN $7::jsonb ELSE failure END,
              version = $8, updated_at = $9
        WHERE project_id = $1 AND id = $2`,
      [
        projectId,
        id,
        changes.label !== undefined,
        changes.label ?? null,
        changes.metadata === undefined ? null : JSON.stringify(changes.metadata),
        changes.failure !== undefined,
        JSON.stringify(changes.failure ?? null),
        version,
        at,
      ],
    );
    return this.externalAccount(projectId, id, { includeDeleted: true });
  }

  async markExternalAccountDeleted(projectId: string, id: string, version: number, at: string): Promise<void> {
    await this.uow.query(
      `UPDATE accounts.external_accounts SET deleted_at = $3, version = $4, updated_at = $3 WHERE project_id = $1 AND id = $2`,
      [projectId, id, at, version],
    );
  }

  /** A deleted account is not found unless asked for: transactions that used it may still resolve it. */
  async externalAccount(
    projectId: string,
    id: string,
    options: { includeDeleted?: boolean } = {},
  ): Promise<ExternalAccountRow | undefined> {
    const [row] = await this.uow.query<ExternalAccountRow>(
      `${SELECT_EXTERNAL_ACCOUNT} WHERE e.project_id = $1 AND e.id = $2 AND ($3 OR e.deleted_at IS NULL)`,
      [projectId, id, options.includeDeleted ?? false],
    );
    return row;
  }

  async listExternalAccounts(
    projectId: string,
    customerId: string,
    counterpartyId: string | undefined,
    before: string | undefined,
    limit: number,
  ): Promise<ExternalAccountRow[]> {
    return this.uow.query<ExternalAccountRow>(
      `${SELECT_EXTERNAL_ACCOUNT}
        WHERE e.project_id = $1 AND e.customer_id = $2 AND e.deleted_at IS NULL
          AND ($3::text IS NULL OR e.counterparty_id = $3) AND ($4::text IS NULL OR e.id < $4)
        ORDER BY e.id DESC LIMIT $5`,
      [projectId, customerId, counterpartyId ?? null, before ?? null, limit + 1],
    );
  }

  /**
   * The active external wallet registered for the customer (its own, or one of its counterparties') at
   * this address on this network; addresses compare case-insensitively (EVM: the checksum is only case).
   */
  async registeredWallet(
    projectId: string,
    customerId: string,
    network: string,
    address: string,
  ): Promise<ExternalAccountRow | undefined> {
    const [row] = await this.uow.query<ExternalAccountRow>(
      `${SELECT_EXTERNAL_ACCOUNT}
        WHERE e.project_id = $1 AND e.customer_id = $2 AND e.type = 'walletExternal' AND e.status = 'active' AND e.deleted_at IS NULL
          AND e.details->>'network' = $3 AND lower(e.details->>'address') = lower($4)
        ORDER BY e.id LIMIT 1`,
      [projectId, customerId, network, address],
    );
    return row;
  }

  /** Accounts of a counterparty that are active, or pending and so about to be. */
  async liveAccountsOfCounterparty(
    projectId: string,
    counterpartyId: string,
  ): Promise<Array<{ id: string; status: ExternalAccountStatus }>> {
    return this.uow.query(
      `SELECT id, status FROM accounts.external_accounts
        WHERE project_id = $1 AND counterparty_id = $2 AND deleted_at IS NULL AND status IN ('active', 'pending') ORDER BY id`,
      [projectId, counterpartyId],
    );
  }

  async insertCounterparty(
    c: Omit<CounterpartyRow, 'created_at' | 'updated_at' | 'deleted_at'> & { at: string },
  ): Promise<CounterpartyRow> {
    const [row] = await this.uow.query<CounterpartyRow>(
      `INSERT INTO accounts.counterparties
         (id, project_id, customer_id, entity_type, first_name, last_name, business_name, name, email, phone, tax_id_provided, address, version, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $14) RETURNING *`,
      [
        c.id,
        c.project_id,
        c.customer_id,
        c.entity_type,
        c.first_name,
        c.last_name,
        c.business_name,
        c.name,
        c.email,
        c.phone,
        c.tax_id_provided,
        JSON.stringify(c.address),
        c.version,
        c.at,
      ],
    );
    return row;
  }

  async updateCounterparty(
    projectId: string,
    id: string,
    changes: Record<string, unknown>,
    name: string,
    version: number,
    at: string,
  ): Promise<CounterpartyRow | undefined> {
    const sets: string[] = [];
    const values: unknown[] = [projectId, id, name, version, at];
    for (const [field, value] of Object.entries(changes)) {
      const column = COUNTERPARTY_COLUMNS[field];
      if (!column) continue;
      values.push(field === 'address' ? JSON.stringify(value) : value);
      sets.push(`${column} = $${values.length}${field === 'address' ? '::jsonb' : ''}`);
    }
    const [row] = await this.uow.query<CounterpartyRow>(
      `UPDATE accounts.counterparties SET ${[...sets, 'name = $3', 'version = $4', 'updated_at = $5'].join(', ')} WHERE project_id = $1 AND id = $2 RETURNING *`,
      values,
    );
    return row;
  }

  async markCounterpartyDeleted(projectId: string, id: string, version: number, at: string): Promise<void> {
    await this.uow.query(
      `UPDATE accounts.counterparties SET deleted_at = $3, version = $4, updated_at = $3 WHERE project_id = $1 AND id = $2`,
      [projectId, id, at, version],
    );
  }

  async counterparty(
    projectId: string,
    id: string,
    options: { includeDeleted?: boolean } = {},
  ): Promise<CounterpartyRow | undefined> {
    const [row] = await this.uow.query<CounterpartyRow>(
      `SELECT * FROM accounts.counterparties WHERE project_id = $1 AND id = $2 AND ($3 OR deleted_at IS NULL)`,
      [projectId, id, options.includeDeleted === true],
    );
    return row;
  }

  async listCounterparties(
    projectId: string,
    customerId: string,
    before: string | undefined,
    limit: number,
  ): Promise<CounterpartyRow[]> {
    return this.uow.query<CounterpartyRow>(
      `SELECT * FROM accounts.counterparties
        WHERE project_id = $1 AND customer_id = $2 AND deleted_at IS NULL AND ($3::text IS NULL OR id < $3)
        ORDER BY id DESC LIMIT $4`,
      [projectId, customerId, before ?? null, limit + 1],
    );
  }
}
