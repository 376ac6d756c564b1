// Read models of the accounts service. Every query takes the project id:
// another project's rows are never read (ARCHITECTURE: every request is
// scoped to the project in its token).
import { Injectable, Optional } from '@nestjs/common';
import { Counter } from 'prom-client';
import type { EndorsementName, EndorsementStatus, LedgerEntry } from '@mm/contracts';
import { UnitOfWork, type Statement } from '@mm/platform/database';
import { HttpMetrics } from '@mm/platform/http';

export interface CustomerRow {
  id: string;
  project_id: string;
  type: 'individual';
  first_name: string;
  last_name: string;
  email: string | null;
  endorsements: Array<{ name: EndorsementName; status: EndorsementStatus }>;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export interface WalletRow {
  id: string;
  project_id: string;
  customer_id: string;
  asset: string;
  network: string;
  address: string;
  /** On a chain: the custody index the address derives from (docs/chain.md). */
  derivation_index: number | null;
  balance: string;
  balance_updated_at: Date;
  created_at: Date;
}

/** A customer as a balance read sees it. */
export type BalanceCustomer = Pick<CustomerRow, 'last_name'>;
/** A wallet as a balance read sees it. */
export type BalanceWallet = Pick<WalletRow, 'asset' | 'balance' | 'balance_updated_at'>;

@Injectable()
export class AccountsReadModels {
  /** mm_ledger_postings_total{asset} (docs/metrics.md): postings committed by this process. */
  private readonly postings?: Counter<'asset'>;

  constructor(
    private readonly uow: UnitOfWork,
    // The application's /metrics; absent where a test builds the repository by hand.
    @Optional() metrics?: HttpMetrics,
  ) {
    this.postings =
      metrics &&
      new Counter({
        name: 'mm_ledger_postings_total',
        help: 'Ledger postings committed (each balanced: its entries sum to zero), by asset',
        labelNames: ['asset'] as const,
        registers: [metrics.registry],
      });
  }

  async insertCustomer(c: Omit<CustomerRow, 'created_at' | 'updated_at'> & { at: string }): Promise<CustomerRow> {
    const [row] = await this.uow.query<CustomerRow>(
      `INSERT INTO accounts.customers (id, project_id, type, first_name, last_name, email, endorsements, version, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $9) RETURNING *`,
      [c.id, c.project_id, c.type, c.first_name, c.last_name, c.email, JSON.stringify(c.endorsements), c.version, c.at],
    );
    return row;
  }

  /** Sets one endorsement's status, keeping the order in which endorsements were first requested. */
  async setEndorsement(
    projectId: string,
    customerId: string,
    name: EndorsementName,
    status: EndorsementStatus,
    version: number,
    at: string,
  ): Promise<CustomerRow | undefined> {
    const customer = await this.customer(projectId, customerId);
    if (!customer) return undefined;
    const endorsements = customer.endorsements.some((e) => e.name === name)
      ? customer.endorsements.map((e) => (e.name === name ? { name, status } : e))
      : [...customer.endorsements, { name, status }];
    const [row] = await this.uow.query<CustomerRow>(
      `UPDATE accounts.customers SET endorsements = $3::jsonb, version = $4, updated_at = $5 WHERE project_id = $1 AND id = $2 RETURNING *`,
      [projectId, customerId, JSON.stringify(endorsements), version, at],
    );
    return row;
  }

  async customer(projectId: string, customerId: string): Promise<CustomerRow | undefined> {
    const [row] = await this.uow.query<CustomerRow>(
      `SELECT * FROM accounts.customers WHERE project_id = $1 AND id = $2`,
      [projectId, customerId],
    );
    return row;
  }

  /** A customer whatever its project: for operators only. */
  async customerOfAnyProject(customerId: string): Promise<CustomerRow | undefined> {
    const [row] = await this.uow.query<CustomerRow>(`SELECT * FROM accounts.customers WHERE id = $1`, [customerId]);
    return row;
  }

  /**
   * A page of the project's customers, newest first; with `search`, only those whose name (first and last)
   * or email contains it, in any case. strpos, not LIKE, so that a `%` or `_` typed is matched as itself.
   */
  async listCustomers(
    projectId: string,
    before: string | undefined,
    limit: number,
    search?: string,
  ): Promise<CustomerRow[]> {
    return this.uow.query<CustomerRow>(
      `SELECT * FROM accounts.customers
        WHERE project_id = $1 AND ($2::text IS NULL OR id < $2)
          AND ($4::text IS NULL
               OR strpos(lower(first_name || ' ' || last_name), lower($4)) > 0
               OR strpos(lower(coalesce(email, '')), lower($4)) > 0)
        ORDER BY id DESC LIMIT $3`,
      [projectId, before ?? null, limit + 1, search ?? null],
    );
  }

  async insertWallet(
    w: Omit<WalletRow, 'balance' | 'balance_updated_at' | 'created_at'> & { at: string },
  ): Promise<void> {
    await this.uow.query(
      `INSERT INTO accounts.wallets (id, project_id, customer_id, asset, network, address, derivation_index, balance, balance_updated_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $8)`,
      [w.id, w.project_id, w.customer_id, w.asset, w.network, w.address, w.derivation_index, w.at],
    );
  }

  /** The next custody index of a wallet's address (a gap from a rolled-back provisioning is an address never shown). */
  async nextWalletDerivationIndex(): Promise<number> {
    const [row] = await this.uow.query<{ index: string }>(
      `SELECT nextval('accounts.wallet_derivation_index') AS index`,
    );
    return Number(row.index);
  }

  /** The wallets on a network whose addresses are among these (any case), for crediting what the chain brought. */
  async walletsAt(
    network: string,
    addresses: string[],
  ): Promise<Array<Pick<WalletRow, 'id' | 'project_id' | 'address'>>> {
    return this.uow.query(
      `SELECT id, project_id, address FROM accounts.wallets
        WHERE network = $1 AND derivation_index IS NOT NULL AND lower(address) = ANY($2::text[])`,
      [network, addresses.map((a) => a.toLowerCase())],
    );
  }

  async wallet(projectId: string, walletId: string): Promise<WalletRow | undefined> {
    const [row] = await this.uow.query<WalletRow>(`SELECT * FROM accounts.wallets WHERE project_id = $1 AND id = $2`, [
      projectId,
      walletId,
    ]);
    return row;
  }

  async listWallets(
    projectId: string,
    customerId: string | undefined,
    before: string | undefined,
    limit: number,
  ): Promise<WalletRow[]> {
    return this.uow.query<WalletRow>(
      `SELECT * FROM accounts.wallets
        WHERE project_id = $1 AND ($2::text IS NULL OR customer_id = $2) AND ($3::text IS NULL OR id < $3)
        ORDER BY id DESC LIMIT $4`,
      [projectId, customerId ?? null, before ?? null, limit + 1],
    );
  }

  /**
   * What a balance read needs of a customer (if there is one) and of its wallets, in one statement: the
   * customer's row joined to its wallets' (none: one row, its wallet columns null), only the columns the
   * custodian reads, so that no other value is sent or parsed (docs/performance.md, round fourteen).
   */
  async balanceHolder(
    projectId: string,
    customerId: string,
  ): Promise<{ customer: BalanceCustomer | undefined; wallets: BalanceWallet[] }> {
    const rows = await this.uow.query<
      BalanceCustomer & { asset: string | null; balance: string | null; balance_updated_at: Date | null }
    >(
      `SELECT c.last_name, w.asset, w.balance, w.balance_updated_at
         FROM accounts.customers c
         LEFT JOIN accounts.wallets w ON w.project_id = c.project_id AND w.customer_id = c.id
        WHERE c.project_id = $1 AND c.id = $2
        ORDER BY w.id`,
      [projectId, customerId],
    );
    if (rows.length === 0) return { customer: undefined, wallets: [] };
    const wallets = rows.flatMap((r) =>
      r.asset === null ? [] : [{ asset: r.asset, balance: r.balance!, balance_updated_at: r.balance_updated_at! }],
    );
    return { customer: { last_name: rows[0].last_name }, wallets };
  }

  /** Applies a posting: its ledger entries and the wallet's new balance. */
  async applyPosting(p: {
    projectId: string;
    walletId: string;
    postingId: string;
    asset: string;
    entries: LedgerEntry[];
    balance: string;
    reason: string;
    at: string;
  }): Promise<void> {
    await this.insertEntries(p);
    await this.uow.defer(
      `UPDATE accounts.wallets SET balance = $3, balance_updated_at = $4 WHERE project_id = $1 AND id = $2`,
      [p.projectId, p.walletId, p.balance, p.at],
    );
  }

  /** Whether a posting is in the ledger: each is applied once. */
  async postingExists(postingId: string): Promise<boolean> {
    const { sql, params } = this.postingExistsStatement(postingId);
    return (await this.uow.query(sql, params)).length > 0;
  }

  /** The same question as a statement to send with others: a row when the posting is in the ledger. */
  postingExistsStatement(postingId: string): Statement {
    return { sql: `SELECT 1 FROM accounts.ledger_entries WHERE posting_id = $1 LIMIT 1`, params: [postingId] };
  }

  /** A posting's entries in one statement, sent with the transaction's next (UnitOfWork.defer). */
  private async insertEntries(p: {
    projectId: string;
    postingId: string;
    asset: string;
    entries: LedgerEntry[];
    reason: string;
    at: string;
  }): Promise<void> {
    const values: unknown[] = [p.postingId, p.projectId, p.asset, p.reason, p.at];
    const tuples = p.entries.map((entry, i) => {
      values.push(i + 1, entry.account, entry.amount);
      const o = 5 + i * 3;
      return `($1, $${o + 1}::smallint, $2, $${o + 2}, $3, $${o + 3}::numeric, $4, $5::timestamptz)`;
    });
    await this.uow.defer(
      `INSERT INTO accounts.ledger_entries (posting_id, entry_no, project_id, account, asset, amount, reason, created_at) VALUES ${tuples.join(', ')}`,
      values,
    );
    // Counted once committed: a posting rolled back never happened.
    if (this.postings) await this.uow.afterCommit(async () => this.postings!.inc({ asset: p.asset }));
  }

  /** A posting between ledger accounts that are not wallets (a transaction's transit, rails, conversion). */
  async applyLedgerPosting(p: {
    projectId: string;
    postingId: string;
    asset: string;
    entries: LedgerEntry[];
    reason: string;
    at: string;
  }): Promise<void> {
    await this.insertEntries(p);
  }

  /** What the custodial wallets of a network hold in all, as the ledger has it (reconciliation). */
  async walletsTotal(network: string): Promise<string> {
    const [row] = await this.uow.query<{ total: string | null }>(
      `SELECT sum(balance)::text AS total FROM accounts.wallets WHERE network = $1`,
      [network],
    );
    return row.total ?? '0';
  }

  /** The balance of a ledger account as the sum of its entries (reconciliation). */
  async ledgerBalance(account: string): Promise<string> {
    const [row] = await this.uow.query<{ total: string | null }>(
      `SELECT sum(amount)::text AS total FROM accounts.ledger_entries WHERE account = $1`,
      [account],
    );
    return row.total ?? '0';
  }
}
