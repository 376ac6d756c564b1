import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError } from '@mm/contracts';
import { UnitOfWork } from '@mm/platform/database';
import { Public } from './route-metadata';

@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  constructor(private readonly uow: UnitOfWork) {}

  /** Liveness: the process answers. */
  @Get('healthz')
  @HttpCode(200)
  healthz() {
    return { status: 'ok' };
  }

  /** Readiness: the database answers. */
  @Get('readyz')
  async readyz() {
    try {
      await this.uow.dataSource.query('SELECT 1');
    } catch {
      throw new ApiError('ServiceUnavailable', 'database unreachable');
    }
    return { status: 'ready' };
  }
}
