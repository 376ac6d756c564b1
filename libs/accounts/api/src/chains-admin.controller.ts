// GET /admin/chains (docs/chain.md): each network the spec names for usdc, whether it runs on a chain or is
// simulated, and where its watcher stands: the node's head, the last block credited, the confirmations it
// waits for, and the treasury that pays its payouts. GET /admin/reconciliation: the ledger against the chain.
import { Controller, Get, Query } from '@nestjs/common';
import { IsString } from 'class-validator';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { ChainReconciliation, WalletChainDeposits } from '@mm/accounts/application';
import { ChainNetworks } from '@mm/platform/chain';
import { CHAIN_NETWORKS } from '@mm/platform/config';
import { AdminRoute } from '@mm/platform/http';

export class ChainReorganisationResponse {
  @ApiProperty({ description: 'the confirmed block whose hash changed' }) block!: number;
  @ApiProperty() recordedHash!: string;
  @ApiProperty({ nullable: true, type: String }) foundHash!: string | null;
}

export class ChainStatusResponse {
  @ApiProperty({ enum: CHAIN_NETWORKS }) network!: string;
  @ApiProperty({ nullable: true, type: Number, description: 'as the node answers it' }) chainId!: number | null;
  @ApiProperty({ enum: ['chain', 'simulated'] }) mode!: 'chain' | 'simulated';
  @ApiProperty({ nullable: true, type: String }) treasuryAddress!: string | null;
  @ApiProperty({
    nullable: true,
    type: Number,
    description: "the node's latest block as the watcher last read it (every MM_CHAIN_POLL_INTERVAL_MS)",
  })
  head!: number | null;
  @ApiProperty({ nullable: true, type: Number, description: 'the last block whose deposits are credited' })
  confirmedThrough!: number | null;
  @ApiProperty({ nullable: true, type: Number }) confirmations!: number | null;
  @ApiPropertyOptional({
    type: ChainReorganisationResponse,
    description: 'a reorganisation deeper than the confirmations: reading stopped there',
  })
  reorganised?: ChainReorganisationResponse;
}

export class ChainStatusListResponse {
  @ApiProperty({ type: [ChainStatusResponse] }) data!: ChainStatusResponse[];
}

@ApiTags('Operator')
@ApiBearerAuth('bearer')
@Controller('admin/chains')
export class ChainsAdminController {
  constructor(
    private readonly chains: ChainNetworks,
    private readonly deposits: WalletChainDeposits,
  ) {}

  @AdminRoute('viewer')
  @Get()
  @ApiOperation({ summary: 'Each usdc network: on a chain or simulated, its head and what is credited through' })
  @ApiOkResponse({ type: ChainStatusListResponse })
  async list(): Promise<ChainStatusListResponse> {
    const data = await Promise.all(CHAIN_NETWORKS.map((network) => this.status(network)));
    return { data };
  }

  private async status(network: (typeof CHAIN_NETWORKS)[number]): Promise<ChainStatusResponse> {
    const client = this.chains.client(network);
    const watched = await this.deposits.status(network);
    if (!client || !watched)
      return {
        network,
        chainId: null,
        mode: 'simulated',
        treasuryAddress: null,
        head: null,
        confirmedThrough: null,
        confirmations: null,
      };
    // The head of the watcher's last completed step: what it has credited is everything that head confirms.
    const { head } = watched;
    return {
      network,
      chainId: watched.chainId,
      mode: 'chain',
      treasuryAddress: this.chains.custody().address(this.chains.custody().treasury(network)),
      head: head === null ? null : Number(head),
      confirmedThrough: watched.confirmedThrough === null ? null : Number(watched.confirmedThrough),
      confirmations: watched.confirmations,
      ...(watched.reorganised
        ? { reorganised: { ...watched.reorganised, block: Number(watched.reorganised.block) } }
        : {}),
    };
  }
}

export class ReconciliationQuery {
  @ApiProperty({ enum: CHAIN_NETWORKS, description: 'a network that runs on a chain' })
  @IsString()
  network!: string;
}

export class ReconciliationResponse {
  @ApiProperty({ enum: CHAIN_NETWORKS }) network!: string;
  @ApiProperty() chainId!: number;
  @ApiProperty({ description: "the block the chain's figures are read at (the node's head)" }) atBlock!: number;
  @ApiProperty({ description: 'the last block the ledger has credited' }) confirmedThrough!: number;
  @ApiProperty({ description: "the custodial wallets' USDC on the network, as the ledger has it" })
  ledgerOwed!: string;
  @ApiProperty({
    description:
      "the operator's own USDC on the network: what reached the treasury from outside, and what conversions left it",
  })
  operatorFloat!: string;
  @ApiProperty({
    description: 'transfers to custody seen but not yet confirmed, and payouts and returns signed but not yet on chain',
  })
  inFlight!: string;
  @ApiProperty({ description: 'the token balances of the treasury and every derived address at atBlock' })
  chainHeld!: string;
  @ApiProperty({ description: 'chainHeld - (ledgerOwed + operatorFloat + inFlight): zero when the books match' })
  unexplainedDifference!: string;
}

@ApiTags('Operator')
@ApiBearerAuth('bearer')
@Controller('admin/reconciliation')
export class ReconciliationAdminController {
  constructor(private readonly reconciliation: ChainReconciliation) {}

  @AdminRoute('viewer')
  @Get()
  @ApiOperation({
    summary:
      "The ledger against the chain for one network on a chain: the customers' USDC, the operator's, what is in flight, what the chain holds, and the difference nothing explains",
    description: "400 InvalidRequest for a network that is not one of the spec's, or that is simulated.",
  })
  @ApiOkResponse({ type: ReconciliationResponse })
  reconcile(@Query() query: ReconciliationQuery): Promise<ReconciliationResponse> {
    return this.reconciliation.reconcile(query.network);
  }
}
