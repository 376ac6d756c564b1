// Per-project time (API-CONTRACT: Sandbox simulations). A project's clock is
// the wall clock plus an offset that only moves forward; every timestamp a
// service writes and every timer it schedules reads it, so a test can advance
// a project by hours without waiting and without touching other projects.
import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';

@Injectable()
export class ProjectClock {
  constructor(private readonly uow: UnitOfWork) {}

  async offsetMs(projectId: string): Promise<number> {
    const [row] = await this.uow.query<{ offset_ms: string }>(
      `SELECT offset_ms FROM platform.sandbox_clocks WHERE project_id = $1`,
      [projectId],
    );
    return row ? Number(row.offset_ms) : 0;
  }

  async now(projectId: string): Promise<Date> {
    return new Date(Date.now() + (await this.offsetMs(projectId)));
  }

  /** Moves the project's clock forward and returns the new time. */
  async advance(projectId: string, seconds: number): Promise<Date> {
    const [row] = await this.uow.query<{ offset_ms: string }>(
      `INSERT INTO platform.sandbox_clocks (project_id, offset_ms) VALUES ($1, $2)
       ON CONFLICT (project_id) DO UPDATE SET offset_ms = platform.sandbox_clocks.offset_ms + EXCLUDED.offset_ms
       RETURNING offset_ms`,
      [projectId, Math.round(seconds * 1000)],
    );
    return new Date(Date.now() + Number(row.offset_ms));
  }
}
