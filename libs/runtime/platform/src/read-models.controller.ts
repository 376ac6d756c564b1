// Operator routes that rebuild a service's read models from its log (docs/kubernetes.md, Rebuilding a read
// model): GET /admin/read-models/{service} lists what can be rebuilt, POST /admin/read-models/{service}/rebuild
// rebuilds all of them or the one named while the service keeps answering. In distributed mode the gateway
// forwards each service's path to it; `npm run rebuild` and the Kubernetes Job call these routes.
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { IsOptional, IsString, Matches } from 'class-validator';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { ApiError, SERVICE_NAMES } from '@mm/contracts';
import { ReadModels, type ReadModelDefinition } from '@mm/platform/event-store';
import { AdminRoute, NoIdempotencyKey } from '@mm/platform/http';

export class RebuildReadModelsRequest {
  @ApiPropertyOptional({
    description: 'one read model of the service; all of them when absent',
    example: 'transactions',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z][a-z-]{0,62}$/, { message: 'readModel must be a read model name such as transactions' })
  readModel?: string;
}

export class ReadModelResponse {
  @ApiProperty({ example: 'transactions' }) name!: string;
  @ApiProperty({ type: [String], example: ['transactions.transactions'] }) tables!: string[];
}

export class ReadModelListResponse {
  @ApiProperty({ enum: SERVICE_NAMES }) service!: string;
  @ApiProperty({ type: [ReadModelResponse] }) data!: ReadModelResponse[];
}

export class ReadModelRebuiltResponse {
  @ApiProperty() readModel!: string;
  @ApiProperty({ description: 'aggregates whose rows were written again from their events' }) streams!: number;
  @ApiProperty({ description: 'rows deleted because no event made them' }) orphansRemoved!: number;
  @ApiProperty() tookMs!: number;
}

export class ReadModelsRebuiltResponse {
  @ApiProperty({ enum: SERVICE_NAMES }) service!: string;
  @ApiProperty({ type: [ReadModelRebuiltResponse] }) data!: ReadModelRebuiltResponse[];
}

@ApiTags('Operator')
@ApiBearerAuth('bearer')
@Controller('admin/read-models')
export class ReadModelsController {
  constructor(private readonly readModels: ReadModels) {}

  @AdminRoute('viewer')
  @Get(':service')
  @ApiOperation({ summary: "The service's read models that can be rebuilt from its log" })
  @ApiOkResponse({ type: ReadModelListResponse })
  list(@Param('service') service: string): ReadModelListResponse {
    return { service, data: this.of(service).map(({ name, tables }) => ({ name, tables: [...tables] })) };
  }

  @AdminRoute('admin')
  @Post(':service/rebuild')
  // A rebuild writes what the log says: running it again changes nothing, so it needs no Idempotency-Key.
  @NoIdempotencyKey()
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Rebuild the service's read models (or the one named) from its log, aggregate by aggregate, while the service keeps answering; answers when done",
    description:
      '404 NotFound for a service this process does not run; 400 InvalidRequest for a read model it does not have.',
  })
  @ApiOkResponse({ type: ReadModelsRebuiltResponse })
  async rebuild(
    @Param('service') service: string,
    @Body() body: RebuildReadModelsRequest,
  ): Promise<ReadModelsRebuiltResponse> {
    const known = this.of(service);
    if (body.readModel !== undefined && !known.some((m) => m.name === body.readModel))
      throw new ApiError(
        'InvalidRequest',
        `readModel: ${service} has no read model ${body.readModel}` +
          (known.length > 0 ? `; it has ${known.map((m) => m.name).join(', ')}` : '; it has none that can be rebuilt'),
      );
    return { service, data: await this.readModels.rebuild(service, body.readModel) };
  }

  /** The service's read models; NotFound where this process does not run the service. */
  private of(service: string): readonly ReadModelDefinition[] {
    const known = this.readModels.of(service);
    if (!known) throw new ApiError('NotFound', `no service ${service} here: one of ${SERVICE_NAMES.join(', ')}`);
    return known;
  }
}
