import { Controller, Get, HttpCode, Injectable } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError } from '@mm/contracts';
import { PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { Public } from './route-metadata';

/**
 * Whether this process has finished starting. Listening is not the last step: the start-up bootstrap
 * follows it (a key pair is made only once the port is bound), so a process is ready only after that.
 */
@Injectable()
export class StartupState {
  private done = false;

  get started(): boolean {
    return this.done;
  }

  markStarted(): void {
    this.done = true;
  }
}

@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly startup: StartupState,
    private readonly config: PlatformConfig,
  ) {}

  /** Liveness: the process answers. */
  @Get('healthz')
  @HttpCode(200)
  healthz() {
    return { status: 'ok' };
  }

  /**
   * Readiness: start-up has finished and the database answers. Production on simulators (allowed by
   * MM_ALLOW_SIMULATED_PROVIDERS) says which, to whoever watches readiness; a sandbox is simulated by design.
   */
  @Get('readyz')
  async readyz() {
    if (!this.startup.started) throw new ApiError('ServiceUnavailable', 'still starting');
    try {
      await this.uow.dataSource.query('SELECT 1');
    } catch {
      throw new ApiError('ServiceUnavailable', 'database unreachable');
    }
    if (this.config.isSandbox) return { status: 'ready' };
    return { status: 'ready', simulatedProviders: this.config.simulatedProviders };
  }
}
