/**
 * The scope settings a checkpoint covers, and whether new settings read history the checkpoint
 * never covered (more event types, raw documents, an earlier start). Pure.
 */
import type { ScopeSettings } from '../config.js';
import type { CheckpointSettings } from '../warehouse/state.repository.js';

export function checkpointSettingsOf(scope: ScopeSettings): CheckpointSettings {
  return { eventTypes: [...scope.eventTypes].sort(), includeRaw: scope.includeRaw, startDate: scope.startDate ?? null };
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
  if (!recorded.includeRaw && current.includeRaw) reasons.push('raw documents are now included');
  if (recorded.startDate && current.startDate && Date.parse(current.startDate) < Date.parse(recorded.startDate)) {
    reasons.push(`the start date moved back from ${recorded.startDate} to ${current.startDate}`);
  }
  return reasons.length > 0 ? reasons.join('; ') : undefined;
}

export function sameSettings(a: CheckpointSettings, b: CheckpointSettings): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
