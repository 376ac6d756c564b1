// A project's settings (features, limits, attribution timeout) as the gateway
// holds them, for the decisions of every service: the gateway port answers from
// here on every cash pickup, source-pinned sell and deposit address (ADR 0057).
// Kept per project in memory while the database can tell this process of every
// change (a trigger on gateway.projects notifies on commit); the operator's PATCH
// is answered only once every process has dropped its copy (ProjectCache.change;
// ADR 0025), so the next request, whichever process serves it, is decided on
// the new settings, with no database round trip on the way.
import { Injectable } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createChangeNotifyTrigger, dropChangeNotifyTrigger, ProjectCache, UnitOfWork } from '@mm/platform/database';
import { GatewayReadModels, type ProjectRow, type ProjectSettingsUpdate } from './gateway-read-models.repository';

export const PROJECT_CHANGES_CHANNEL = 'mm_project_changes';

@Injectable()
export class ProjectSettings extends ProjectCache<ProjectRow | undefined> {
  constructor(
    uow: UnitOfWork,
    private readonly readModels: GatewayReadModels,
  ) {
    super(uow, PROJECT_CHANGES_CHANNEL, 'project-settings');
  }

  /** The project as it is now (from memory once read), or undefined for an unknown one. */
  project(projectId: string): Promise<ProjectRow | undefined> {
    return this.cached(projectId, () => this.readModels.project(projectId));
  }

  /** Writes the project's new settings: once the caller's transaction has committed, every process decides on them. */
  update(projectId: string, settings: ProjectSettingsUpdate, at: string): Promise<void> {
    return this.change(projectId, () => this.readModels.updateProject(projectId, settings, at));
  }
}

const TRIGGER = { name: 'notify_project_changed', table: 'gateway.projects' };

/** Every change of a project's settings tells the processes that keep them. */
export class GatewayProjectChanges1700000001800 implements MigrationInterface {
  name = 'GatewayProjectChanges1700000001800';

  async up(runner: QueryRunner): Promise<void> {
    await createChangeNotifyTrigger(runner, {
      ...TRIGGER,
      events: 'AFTER UPDATE',
      channel: PROJECT_CHANGES_CHANNEL,
      groupColumn: 'id',
    });
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropChangeNotifyTrigger(runner, TRIGGER);
  }
}

/** A project's four-eyes threshold (docs/operators.md, Four eyes): null, no operator action waits for approval. */
export class GatewayFourEyesThreshold1700000001950 implements MigrationInterface {
  name = 'GatewayFourEyesThreshold1700000001950';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE gateway.projects ADD COLUMN four_eyes_threshold text`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE gateway.projects DROP COLUMN four_eyes_threshold`);
  }
}
