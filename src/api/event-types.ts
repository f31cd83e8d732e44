/**
 * An entry of Atlas v2's event type catalogue (`GET /api/atlas/v2/eventTypes`: results of
 * `{eventType, description, alertable}`), reduced to what the warehouse keeps. Pure.
 */
import { z } from 'zod';

export interface CatalogType {
  readonly type: string;
  readonly description: string | null;
  readonly alertable: boolean | null;
}

const entry = z.looseObject({
  eventType: z.string().min(1),
  description: z.string().nullable().optional().catch(null),
  alertable: z.boolean().nullable().optional().catch(null),
});

/** The entry, or undefined when it names no type (it is skipped). */
export function readCatalogType(item: unknown): CatalogType | undefined {
  const parsed = entry.safeParse(item);
  if (!parsed.success) return undefined;
  return { type: parsed.data.eventType, description: parsed.data.description ?? null, alertable: parsed.data.alertable ?? null };
}
