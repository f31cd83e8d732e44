/**
 * The v2 `eventTypes` catalogue the emulator serves: every generated type with a description and
 * whether alerts can be configured on it. Types can be added and removed while running, as the
 * service's catalogue changes. Pure.
 */
import { EVENT_TYPES, familyOf } from './event-types.js';

export interface CatalogEntry {
  readonly eventType: string;
  readonly description: string;
  readonly alertable: boolean;
}

const ALERTABLE_FAMILIES = new Set(['metricAlert', 'hostAlert', 'replicaAlert', 'cluster', 'member', 'payment', 'invoice', 'maintenance']);

/** `HOST_DOWN` → `Host down`. */
export function describeEventType(name: string): string {
  const words = name.toLowerCase().split('_').filter(Boolean).join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export class EventTypeCatalog {
  readonly #entries = new Map<string, CatalogEntry>();

  constructor() {
    for (const spec of EVENT_TYPES) this.add(spec.name);
  }

  add(eventType: string, entry: Partial<Omit<CatalogEntry, 'eventType'>> = {}): void {
    this.#entries.set(eventType, {
      eventType,
      description: entry.description ?? describeEventType(eventType),
      alertable: entry.alertable ?? ALERTABLE_FAMILIES.has(familyOf(eventType)),
    });
  }

  remove(eventType: string): boolean {
    return this.#entries.delete(eventType);
  }

  /** Sorted by name, so pages are stable. */
  all(): CatalogEntry[] {
    return [...this.#entries.values()].sort((a, b) => (a.eventType < b.eventType ? -1 : a.eventType > b.eventType ? 1 : 0));
  }
}
