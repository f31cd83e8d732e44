/**
 * `events-mirror config` for a terminal: the settings grouped by where they came from, lowest layer
 * first (defaults, config files, `.env`, the environment, the command line), `key = value` a line,
 * so that a line fits 80 columns where a three-column table would not.
 */
import type { ConfigSetting } from '../config-sources.js';
import { terminalSafe } from './table.js';
import { TERMINAL_WIDTH, wrapList } from './wrap-list.js';

export function renderConfigSources(settings: readonly ConfigSetting[]): string {
  const groups = new Map<string, ConfigSetting[]>();
  for (const setting of [...settings].sort((a, b) => rank(a.source) - rank(b.source))) {
    const title = groupTitle(setting.source);
    groups.set(title, [...(groups.get(title) ?? []), setting]);
  }
  const blocks = [...groups].map(([title, members]) => {
    const width = Math.max(...members.map((m) => m.key.length));
    const lines = members.flatMap((m) => {
      const from = m.source.includes('$') ? m.source.replace(/^\.env /, '') : '';
      const over = m.overrides ? `overrides ${m.overrides}` : '';
      const variable = from || over ? `(${[from, over].filter(Boolean).join('; ')})` : '';
      return wrapped(`  ${m.key.padEnd(width)} = `, terminalSafe(m.value), variable);
    });
    return [`${title}:`, ...lines].join('\n');
  });
  return `${blocks.join('\n\n')}\n`;
}

/**
 * `lead` then the value, and the variable it came from after two spaces; a list too long for one
 * line continues under its first item, a few items a line (a fleet's scopes are hundreds).
 */
function wrapped(lead: string, value: string, variable: string): string[] {
  const indent = ' '.repeat(lead.length);
  const lines = wrapList(lead, value.split(', '), indent);
  if (!variable) return lines;
  const last = lines.pop()!;
  return last.length + 2 + variable.length > TERMINAL_WIDTH ? [...lines, last, `${indent}${variable}`] : [...lines, `${last}  ${variable}`];
}

function groupTitle(source: string): string {
  if (source === 'default') return 'Defaults';
  if (source === 'command line') return 'From the command line';
  if (source.startsWith('.env ')) return 'From .env';
  if (source.startsWith('$') || source === 'environment') return 'From the environment';
  return `From ${terminalSafe(source)}`;
}

function rank(source: string): number {
  if (source === 'default') return 0;
  if (source === 'command line') return 4;
  if (source.startsWith('.env ')) return 2;
  if (source.startsWith('$') || source === 'environment') return 3;
  return 1;
}
