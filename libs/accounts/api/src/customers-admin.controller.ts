// GET /admin/customers/{customerId} (docs/operators.md): a customer as operators see them, whatever the project,
// with the project named, so that an operator's queue and pages can say whose money is held rather than show an id.
import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { AccountsReadModels } from '@mm/accounts/infrastructure';
import { ApiError } from '@mm/contracts';
import { AdminRoute } from '@mm/platform/http';
import { isId } from '@mm/platform/ids';
import { CustomerResponse } from './accounts.dto';
import { toCustomer } from './accounts.mappers';

export class OperatorCustomerResponse extends CustomerResponse {
  @ApiProperty({ example: 'prj_01h455vb4pex5vsknk084sn02q' }) projectId!: string;
}

@ApiTags('Operator')
@ApiBearerAuth('bearer')
@Controller('admin/customers')
export class CustomersAdminController {
  constructor(private readonly readModels: AccountsReadModels) {}

  @AdminRoute('viewer')
  @Get(':customerId')
  @ApiOperation({ summary: 'A customer of any project, as the partner sees them, with their project' })
  @ApiOkResponse({ type: OperatorCustomerResponse })
  async get(@Param('customerId') customerId: string): Promise<OperatorCustomerResponse> {
    const row = isId('customer', customerId) ? await this.readModels.customerOfAnyProject(customerId) : undefined;
    if (!row) throw new ApiError('CustomerNotFound', 'no such customer in any project');
    return { ...toCustomer(row), projectId: row.project_id };
  }
}
