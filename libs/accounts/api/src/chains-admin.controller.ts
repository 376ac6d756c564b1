// GET /admin/chains (docs/chain.md): each network the spec names for usdc, whether it runs on a chain or is
// simulated, and where its watcher stands: the node's head now, the last block credited, the confirmations
// it waits for, and the treasury that pays its payouts.
import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { WalletChainDeposits } from '@mm/accounts/application';
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
@AdminRoute()
@Controller('admin/chains')
export class ChainsAdminController {
  constructor(
    private readonly chains: ChainNetworks,
    private readonly deposits: WalletChainDeposits,
  ) {}

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
