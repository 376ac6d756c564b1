import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { Idempotent, ProjectId, SandboxOnly } from '@mm/platform/http';
import { ProjectClock } from './project-clock';
import { TimerService } from './timer.service';

export class AdvanceClockRequest {
  @ApiProperty({ minimum: 1, maximum: 31536000, description: 'seconds to move the project clock forward' })
  @IsInt()
  @Min(1)
  @Max(365 * 24 * 3600)
  seconds!: number;
}

export class SandboxClockResponse {
  @ApiProperty({ enum: ['sandboxClock'] }) object!: 'sandboxClock';
  @ApiProperty({ format: 'date-time', description: 'the project clock, ISO 8601 UTC' }) now!: string;
  @ApiProperty({ type: 'integer', description: 'how far the project clock is ahead of real time' })
  offsetSeconds!: number;
  @ApiPropertyOptional({
    type: 'integer',
    description:
      'timers that fell due and fired before the answer (advance only); a large backlog is finished in the background',
  })
  firedTimers?: number;
}

/**
 * How long an advance fires due timers before it answers. A backlog of thousands (a load test's payouts)
 * takes longer than a client or the server's idle timeout (MM_HTTP_IDLE_TIMEOUT_MS, 30 s by default) waits
 * on a silent connection; what is still due then is fired by the background poller once the advance has
 * committed, within about a second, as the timers of other services are.
 */
export const ADVANCE_FIRING_BUDGET_MS = 5_000;

@ApiTags('Sandbox')
@ApiBearerAuth('bearer')
@SandboxOnly()
@Controller('sandbox/clock')
export class SandboxClockController {
  constructor(
    private readonly clock: ProjectClock,
    private readonly timers: TimerService,
  ) {}

  @Get()
  @ApiOperation({ summary: "Read the project's sandbox clock" })
  @ApiOkResponse({ type: SandboxClockResponse })
  async read(@ProjectId() projectId: string): Promise<SandboxClockResponse> {
    const offset = await this.clock.offsetMs(projectId);
    return {
      object: 'sandboxClock',
      now: new Date(Date.now() + offset).toISOString(),
      offsetSeconds: Math.floor(offset / 1000),
    };
  }

  @Post('advance')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: "Move the project's clock forward and fire every timer that falls due" })
  @ApiOkResponse({ type: SandboxClockResponse })
  async advance(@ProjectId() projectId: string, @Body() body: AdvanceClockRequest): Promise<SandboxClockResponse> {
    const now = await this.clock.advance(projectId, body.seconds);
    const offset = await this.clock.offsetMs(projectId);
    const firedTimers = await this.timers.fireDue(projectId, ADVANCE_FIRING_BUDGET_MS);
    return { object: 'sandboxClock', now: now.toISOString(), offsetSeconds: Math.floor(offset / 1000), firedTimers };
  }
}
