import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ApiError, DEFAULT_INVALIDATION_CODE, type CounterpartyAddress } from '@mm/contracts';
import {
  CounterpartiesService,
  CustomersService,
  ExternalAccountsService,
  type ExternalAccountOwner,
} from '@mm/accounts/application';
import { isCountryCode, type InstrumentInput } from '@mm/accounts/domain';
import { ExternalAccountsReadModels } from '@mm/accounts/infrastructure';
import {
  ApiPage,
  decodeCursor,
  Idempotent,
  pageLimit,
  ProjectId,
  SandboxOnly,
  toPage,
  validateObject,
  type Page,
} from '@mm/platform/http';
import { isId } from '@mm/platform/ids';
import {
  AddressRequest,
  BankCanadaRequest,
  BankIbanRequest,
  BankUsRequest,
  CardRequest,
  CounterpartyResponse,
  CreateCardRequest,
  CreateCounterpartyRequest,
  CreateExternalAccountRequest,
  ExternalAccountResponse,
  InvalidateExternalAccountRequest,
  ListCounterpartiesQuery,
  ListExternalAccountsQuery,
  UpdateCounterpartyRequest,
  UpdateExternalAccountRequest,
  WalletExternalRequest,
  type OwnerRequest,
} from './external-accounts.dto';
import { toCounterparty, toExternalAccount } from './external-accounts.mappers';

const PER_TYPE_OBJECTS = ['bankUs', 'bankIban', 'bankCanada', 'walletExternal', 'card'] as const;
const PER_TYPE_CLASSES = {
  bankUs: BankUsRequest,
  bankIban: BankIbanRequest,
  bankCanada: BankCanadaRequest,
  walletExternal: WalletExternalRequest,
} as const;
const MUTABLE_FIELDS = ['label', 'metadata'];

function toOwner(owner: OwnerRequest): ExternalAccountOwner {
  if (owner.kind === 'customer') {
    if (owner.counterpartyId !== undefined)
      throw new ApiError('InvalidRequest', 'owner.counterpartyId: only with kind counterparty');
    return { kind: 'customer', customerId: owner.customerId! };
  }
  if (owner.customerId !== undefined)
    throw new ApiError(
      'InvalidRequest',
      'owner.customerId: only with kind customer; a counterparty names its customer',
    );
  return { kind: 'counterparty', counterpartyId: owner.counterpartyId! };
}

/** Spec: exactly one per-type object, named after `type`; 422 on a mismatch; cards have their own endpoint. */
function toInstrument(body: CreateExternalAccountRequest): InstrumentInput {
  if (body.type === 'card')
    throw new ApiError('CardMustUseCardEndpoint', 'type: register cards at POST /external-accounts/cards');
  const present = PER_TYPE_OBJECTS.filter((name) => body[name] !== undefined && body[name] !== null);
  if (present.length === 0)
    throw new ApiError('ExternalAccountTypeMismatch', `${body.type}: required for type ${body.type}`);
  if (present.length > 1)
    throw new ApiError(
      'ExternalAccountTypeMismatch',
      `${present.join(', ')}: exactly one per-type object, named after type (${body.type})`,
    );
  if (present[0] !== body.type)
    throw new ApiError(
      'ExternalAccountTypeMismatch',
      `${present[0]}: type is ${body.type}, so the per-type object must be ${body.type}`,
    );
  const type = body.type;
  return { type, [type]: validateObject<object>(PER_TYPE_CLASSES[type], body[type], type) } as InstrumentInput;
}

function toAddress(address: AddressRequest | null | undefined): CounterpartyAddress | null | undefined {
  if (!address) return address;
  const country = address.country?.trim().toUpperCase();
  if (country !== undefined && !isCountryCode(country))
    throw new ApiError('InvalidRequest', 'address.country: must be an ISO 3166-1 alpha-2 country code, for example US');
  return {
    streetAddress: address.streetAddress ?? null,
    city: address.city ?? null,
    postalCode: address.postalCode ?? null,
    country: country ?? null,
  };
}

@ApiTags('External accounts')
@ApiBearerAuth('bearer')
@Controller('external-accounts')
export class ExternalAccountsController {
  constructor(
    private readonly externalAccounts: ExternalAccountsService,
    private readonly customers: CustomersService,
    private readonly counterparties: CounterpartiesService,
    private readonly readModels: ExternalAccountsReadModels,
  ) {}

  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Register a bank account or an external wallet; it starts pending and is provisioned asynchronously',
  })
  @ApiCreatedResponse({ type: ExternalAccountResponse })
  async create(
    @ProjectId() projectId: string,
    @Body() body: CreateExternalAccountRequest,
  ): Promise<ExternalAccountResponse> {
    const instrument = toInstrument(body);
    return toExternalAccount(
      await this.externalAccounts.register(projectId, {
        owner: toOwner(body.owner),
        instrument,
        label: body.label,
        metadata: body.metadata,
      }),
    );
  }

  @Post('cards')
  @Idempotent()
  @ApiOperation({
    summary: 'Register a debit card: the number goes to the card processor, only last4 and brand are kept',
  })
  @ApiCreatedResponse({ type: ExternalAccountResponse })
  async createCard(@ProjectId() projectId: string, @Body() body: CreateCardRequest): Promise<ExternalAccountResponse> {
    if (body.card === undefined || body.card === null)
      throw new ApiError('ExternalAccountTypeMismatch', 'card: required');
    const card = validateObject(CardRequest, body.card, 'card');
    if (card.billingAddress != null && body.billingAddress != null) {
      throw new ApiError('InvalidRequest', 'billingAddress: give it once, inside card or at the top level');
    }
    const instrument: InstrumentInput = {
      type: 'card',
      card: { ...card, billingAddress: card.billingAddress ?? body.billingAddress },
    };
    return toExternalAccount(
      await this.externalAccounts.register(projectId, {
        owner: toOwner(body.owner),
        instrument,
        label: body.label,
        metadata: body.metadata,
      }),
    );
  }

  @Get()
  @ApiOperation({ summary: "List a customer's external accounts (its own and its counterparties'), newest first" })
  @ApiPage(ExternalAccountResponse)
  async list(
    @ProjectId() projectId: string,
    @Query() query: ListExternalAccountsQuery,
  ): Promise<Page<ExternalAccountResponse>> {
    await this.customers.require(projectId, query.customerId);
    if (query.counterpartyId !== undefined && !isId('counterparty', query.counterpartyId)) {
      throw new ApiError(
        'InvalidCounterpartyID',
        `"${query.counterpartyId.slice(0, 64)}" is not a counterparty id (cpty_…)`,
      );
    }
    const limit = pageLimit(query);
    const rows = await this.readModels.listExternalAccounts(
      projectId,
      query.customerId,
      query.counterpartyId,
      decodeCursor(query.cursor),
      limit,
    );
    const page = toPage(rows, limit, (r) => r.id);
    return { ...page, data: page.data.map(toExternalAccount) };
  }

  @Get(':id')
  @ApiOkResponse({ type: ExternalAccountResponse })
  async get(@ProjectId() projectId: string, @Param('id') id: string): Promise<ExternalAccountResponse> {
    return toExternalAccount(await this.externalAccounts.require(projectId, id));
  }

  @Patch(':id')
  @Idempotent()
  @ApiOperation({ summary: 'Change label and metadata; financial details are immutable (register a new account)' })
  @ApiBody({ type: UpdateExternalAccountRequest })
  @ApiOkResponse({ type: ExternalAccountResponse })
  async update(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Body() raw: Record<string, unknown>,
  ): Promise<ExternalAccountResponse> {
    if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
      const immutable = Object.keys(raw).filter((key) => !MUTABLE_FIELDS.includes(key));
      if (immutable.length > 0) {
        throw new ApiError(
          'ExternalAccountFieldImmutable',
          `${immutable.slice(0, 5).join(', ')}: only label and metadata can change; register a new external account to change anything else`,
        );
      }
    }
    const body = validateObject(UpdateExternalAccountRequest, raw, '');
    return toExternalAccount(
      await this.externalAccounts.update(projectId, id, { label: body.label, metadata: body.metadata }),
    );
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete softly: gone from reads and lists, still resolvable by transactions that used it' })
  @ApiNoContentResponse()
  async delete(@ProjectId() projectId: string, @Param('id') id: string): Promise<void> {
    await this.externalAccounts.delete(projectId, id);
  }
}

@ApiTags('Sandbox')
@ApiBearerAuth('bearer')
@SandboxOnly()
@Controller('external-accounts')
export class SandboxExternalAccountsController {
  constructor(private readonly externalAccounts: ExternalAccountsService) {}

  @Post(':id/simulate/invalidate')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'The provider reports the account unusable (closed): status invalid, from any status' })
  @ApiOkResponse({ type: ExternalAccountResponse })
  async invalidate(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Body() body: InvalidateExternalAccountRequest,
  ): Promise<ExternalAccountResponse> {
    const code = body.code ?? DEFAULT_INVALIDATION_CODE;
    return toExternalAccount(
      await this.externalAccounts.invalidate(projectId, id, {
        code,
        message: 'the provider reported the account can no longer be used',
      }),
    );
  }
}

@ApiTags('Counterparties')
@ApiBearerAuth('bearer')
@Controller('counterparties')
export class CounterpartiesController {
  constructor(
    private readonly counterparties: CounterpartiesService,
    private readonly customers: CustomersService,
    private readonly readModels: ExternalAccountsReadModels,
  ) {}

  @Post()
  @Idempotent()
  @ApiOperation({ summary: 'Create a counterparty: a third party the customer pays' })
  @ApiCreatedResponse({ type: CounterpartyResponse })
  async create(@ProjectId() projectId: string, @Body() body: CreateCounterpartyRequest): Promise<CounterpartyResponse> {
    const { customerId, entityType, address, ...fields } = body;
    return toCounterparty(
      await this.counterparties.create(projectId, customerId, entityType, { ...fields, address: toAddress(address) }),
    );
  }

  @Get()
  @ApiOperation({ summary: "List a customer's counterparties, newest first" })
  @ApiPage(CounterpartyResponse)
  async list(
    @ProjectId() projectId: string,
    @Query() query: ListCounterpartiesQuery,
  ): Promise<Page<CounterpartyResponse>> {
    await this.customers.require(projectId, query.customerId);
    const limit = pageLimit(query);
    const page = toPage(
      await this.readModels.listCounterparties(projectId, query.customerId, decodeCursor(query.cursor), limit),
      limit,
      (r) => r.id,
    );
    return { ...page, data: page.data.map(toCounterparty) };
  }

  @Get(':id')
  @ApiOkResponse({ type: CounterpartyResponse })
  async get(@ProjectId() projectId: string, @Param('id') id: string): Promise<CounterpartyResponse> {
    return toCounterparty(await this.counterparties.require(projectId, id));
  }

  @Patch(':id')
  @Idempotent()
  @ApiOperation({
    summary:
      'Change names, contact details, tax id or address; name is recomposed; entityType and customerId are fixed',
  })
  @ApiOkResponse({ type: CounterpartyResponse })
  async update(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Body() body: UpdateCounterpartyRequest,
  ): Promise<CounterpartyResponse> {
    const { address, ...fields } = body;
    return toCounterparty(await this.counterparties.update(projectId, id, { ...fields, address: toAddress(address) }));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete; 409 while it still owns active external accounts' })
  @ApiNoContentResponse()
  async delete(@ProjectId() projectId: string, @Param('id') id: string): Promise<void> {
    await this.counterparties.delete(projectId, id);
  }
}
