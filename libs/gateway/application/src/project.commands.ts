// The project aggregate's command path (ARCHITECTURE: Inside one service): a project and its credentials, each
// new event written to the gateway's read models as it is appended; then what must hold before a change is
// answered, in every process: new settings decided on by all (ADR 0057), a revoked key's tokens refused by all
// (ADR 0025).
import { Injectable } from '@nestjs/common';
import {
  DEFAULT_ATTRIBUTION_TIMEOUT_HOURS,
  projectDecider,
  projectStreamId,
  type ProjectCommand,
  type ProjectEvent,
  type ProjectState,
} from '@mm/gateway/domain';
import { GatewayReadModels, ProjectSettings } from '@mm/gateway/infrastructure';
import { revokeEverywhere, VerifiedTokens } from '@mm/platform/auth';
import { UnitOfWork } from '@mm/platform/database';
import { CommandHandler, type AfterDecision, type RecordedEvent } from '@mm/platform/event-store';
import { GatewayEventStore } from './gateway.event-store';

type After = AfterDecision<ProjectEvent, ProjectState>;

@Injectable()
export class ProjectCommands extends CommandHandler<ProjectCommand, ProjectEvent, ProjectState> {
  constructor(
    store: GatewayEventStore,
    readModels: GatewayReadModels,
    settings: ProjectSettings,
    uow: UnitOfWork,
    verifiedTokens: VerifiedTokens,
  ) {
    // The settings as the project now has them: answered once no process decides on them as they were.
    const applySettings: After = async ({ state, events }, { projectId }) => {
      for (const event of events as unknown as Array<RecordedEvent & ProjectEvent>) {
        if (event.type !== 'project.updated' || state.status === 'none') continue;
        const { features, limits, attributionTimeoutHours, fourEyesThreshold } = state;
        await settings.update(
          projectId,
          { features, limits, attributionTimeoutHours, fourEyesThreshold },
          event.data.updatedAt,
        );
      }
    };
    // Answered once no process answers from a token of the key verified before (docs: "stop working at once"),
    // or, for a rolled key, from one verified without its expiry (a token is then remembered no longer than it).
    const revokeKeys: After = async ({ events }) => {
      for (const event of events as unknown as Array<RecordedEvent & ProjectEvent>) {
        if (event.type === 'apiKey.revoked') {
          const { apiKey, revokedAt } = event.data;
          await revokeEverywhere(uow, verifiedTokens, apiKey, () => readModels.revokeApiKey(apiKey, revokedAt));
        } else if (event.type === 'apiKey.rolled') {
          const { apiKey, successor, expiresAt } = event.data;
          await revokeEverywhere(uow, verifiedTokens, apiKey, () =>
            readModels.rollApiKey(apiKey, successor, expiresAt),
          );
        }
      }
    };
    super(store, {
      decider: projectDecider,
      streamId: projectStreamId,
      project: (event) => projectGateway(readModels, event),
      then: [applySettings, revokeKeys],
    });
  }
}

/** The read models every request is authenticated and routed by. */
async function projectGateway(readModels: GatewayReadModels, event: RecordedEvent & ProjectEvent): Promise<void> {
  switch (event.type) {
    case 'project.created': {
      const d = event.data;
      return readModels.insertProject({
        id: d.projectId,
        name: d.name,
        features: d.features,
        attributionTimeoutHours: DEFAULT_ATTRIBUTION_TIMEOUT_HOURS,
        fourEyesThreshold: d.fourEyesThreshold ?? null,
        at: d.createdAt,
      });
    }
    case 'apiKey.created': {
      const d = event.data;
      return readModels.insertApiKey({
        apiKey: d.apiKey,
        projectId: d.projectId,
        mode: d.mode,
        secretHash: d.secretHash,
        name: d.name ?? null,
        scopes: d.scopes ?? null,
        at: d.createdAt,
      });
    }
    case 'publishableKey.created': {
      const d = event.data;
      return readModels.insertPublishableKey({
        publishableKey: d.publishableKey,
        projectId: d.projectId,
        mode: d.mode,
        at: d.createdAt,
      });
    }
    case 'publishableKey.revoked':
      return readModels.revokePublishableKey(event.data.publishableKey, event.data.revokedAt);
    // Written by the after-steps, which must hold in every process before the change is answered.
    case 'project.updated':
    case 'apiKey.revoked':
    case 'apiKey.rolled':
      return;
  }
}
