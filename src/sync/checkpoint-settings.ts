/**
 * The scope settings a checkpoint covers, and whether new settings read history the checkpoint
 * never covered (more event types, raw documents, an earlier start). Pure.
 */
import type { ScopeSettings } from '../config.js';
import type { CheckpointSettings } from '../warehouse/state.repository.js';

export function checkpointSettingsOf(scope: ScopeSettings): CheckpointSettings {
  return {
    eventTypes: [...scope.eventTypes].sort(),
    includeRaw: scope.includeRaw,
    startDate: scope.startDate ?? null,
    // Only when set: a checkpoint made without them reads as the same settings.
    ...(scope.excludeEventTypes?.length ? { excludeEventTypes: [...scope.excludeEventTypes].sort() } : {}),
    ...(scope.clusterNames?.length ? { clusterNames: [...scope.clusterNames].sort() } : {}),
  };
}

/** The Atlas v2 project feed's server-side filters of a scope, as a window query takes them. */
export function serverFiltersOf(scope: ScopeSettings): { excludedEventTypes?: readonly string[]; clusterNames?: readonly string[] } {
  return {
    ...(scope.excludeEventTypes?.length ? { excludedEventTypes: scope.excludeEventTypes } : {}),
    ...(scope.clusterNames?.length ? { clusterNames: scope.clusterNames } : {}),
  };
}

/** Why `current` reads history `recorded` did not cover, or undefined when it reads nothing new. */
export function widening(recorded: CheckpointSettings, current: CheckpointSettings): string | undefined {
  const reasons: string[] = [];
  if (recorded.eventTypes.length > 0) {
    if (current.eventTypes.length === 0) reasons.push('every event type is now read (was only some)');
    else {
      const added = current.eventTypes.filter((type) => !recorded.eventTypes.includes(type));
      if (added.length > 0) reasons.push(`event types ${added.join(', ')} were added`);
    }
  }
  const readAgain = (recorded.excludeEventTypes ?? []).filter((type) => !(current.excludeEventTypes ?? []).includes(type));
  if (readAgain.length > 0) reasons.push(`event types ${readAgain.join(', ')} are no longer excluded`);
  const clustersBefore = recorded.clusterNames ?? [];
  if (clustersBefore.length > 0) {
    const clustersNow = current.clusterNames ?? [];
    if (clustersNow.length === 0) reasons.push('every cluster is now read (was only some)');
    else {
      const added = clustersNow.filter((name) => !clustersBefore.includes(name));
      if (added.length > 0) reasons.push(`clusters ${added.join(', ')} were added`);
    }
  }
  if (!recorded.includeRaw && current.includeRaw) reasons.push('raw documents are now included');
  if (recorded.startDate && current.startDate && Date.parse(current.startDate) < Date.parse(recorded.startDate)) {
    reasons.push(`the start date moved back from ${recorded.startDate} to ${current.startDate}`);
  }
  return reasons.length > 0 ? reasons.join('; ') : undefined;
}

export function sameSettings(a: CheckpointSettings, b: CheckpointSettings): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
