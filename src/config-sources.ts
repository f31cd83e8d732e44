/**
 * The effective configuration, one setting a line, with the layer each value came from: the
 * default, a config file, an environment variable (or the `.env` file) or the command line.
 * Secrets are never shown: a private key or client secret reads "(set, hidden)", and a URL's
 * secrets (DATABASE_URL, REDIS_URL, a base URL, a proxy: see url-display.ts) are replaced by `****`.
 */
import path from 'node:path';
import { maskUrl } from './url-display.js';
import { ENV_BINDINGS, SECRET_FILE_BINDINGS, configKeysAt, defaultConfigDir, type LoadedConfig } from './config.js';

export interface ConfigSetting {
  /** `api.baseUrl`, `scopes`, `credentials.acme.privateKeyEnv`. */
  readonly key: string;
  /** As a person reads it; `-` when unset. */
  readonly value: string;
  /** `default`, a config file (`config/default.json` for the project's own), `$NAME`, `.env $NAME`, or `command line`. */
  readonly source: string;
  /** A config file that sets it too, overridden by `source` (the environment, the command line); its value was validated all the same. */
  readonly overrides?: string;
}

const HIDDEN = '(set, hidden)';
const UNSET = '-';

/** Every setting of `loaded`, in the schema's order; `fromDotEnv` names the variables `.env` supplied. */
export function describeConfigSources(loaded: LoadedConfig, fromDotEnv: ReadonlySet<string>): ConfigSetting[] {
  const secretPaths = new Set(SECRET_FILE_BINDINGS.map((binding) => binding.path.join('.')));
  const settings: ConfigSetting[] = [];
  const visit = (keyPath: readonly string[], value: unknown) => {
    const key = keyPath.join('.');
    const nested = keyPath.length === 1 && key === 'credentials' ? Object.keys(asRecord(value)) : childKeys(keyPath, value);
    if (nested.length > 0 && isRecord(value ?? {}) && !Array.isArray(value)) {
      for (const child of nested) visit([...keyPath, child], asRecord(value)[child]);
      return;
    }
    const secret = secretPaths.has(key) || /^credentials\.[^.]+\.(privateKey|clientSecret)$/.test(key);
    const overridden = overriddenFile(loaded, keyPath);
    settings.push({
      key,
      value: value === undefined ? UNSET : secret ? HIDDEN : display(value),
      source: sourceOf(loaded, keyPath, fromDotEnv),
      ...(overridden ? { overrides: overridden } : {}),
    });
  };
  const sections = [...new Set([...configKeysAt([]), ...Object.keys(loaded.settings)])];
  for (const section of sections) visit([section], loaded.settings[section]);
  return settings;
}

/** The keys below a section or credential: the schema's, and any the settings hold beyond them. */
function childKeys(keyPath: readonly string[], value: unknown): string[] {
  const fromSchema = keyPath[0] === 'credentials' ? [] : configKeysAt(keyPath);
  const present = isRecord(value) && !Array.isArray(value) ? Object.keys(value) : [];
  return [...new Set([...fromSchema, ...present])];
}

/** The last layer that sets `keyPath` (or a part of it), named for a person. */
function sourceOf(loaded: LoadedConfig, keyPath: readonly string[], fromDotEnv: ReadonlySet<string>): string {
  for (const layer of [...loaded.layers].reverse()) {
    if (!sets(layer.value, keyPath)) continue;
    if (layer.source !== 'environment') return projectFile(layer.source);
    const variable = variableFor(loaded.env, keyPath);
    if (!variable) return 'environment';
    return fromDotEnv.has(variable) ? `.env $${variable}` : `$${variable}`;
  }
  return 'default';
}

/** The file named by EVENTS_MIRROR_CONFIG (the last file layer) when it sets `keyPath` and a later layer sets it again. */
function overriddenFile(loaded: LoadedConfig, keyPath: readonly string[]): string | undefined {
  const layers = loaded.layers;
  const winner = layers.findLastIndex((layer) => sets(layer.value, keyPath));
  const file = layers.findLastIndex((layer, i) => i < winner && sets(layer.value, keyPath));
  if (file < 0 || ['environment', 'command line'].includes(layers[file]!.source)) return undefined;
  return path.dirname(layers[file]!.source) === defaultConfigDir() ? undefined : layers[file]!.source;
}

/** The project's own config files by their short name; any other file by its path. */
function projectFile(source: string): string {
  const projectConfig = defaultConfigDir();
  return path.dirname(source) === projectConfig ? `config/${path.basename(source)}` : source;
}

function variableFor(env: NodeJS.ProcessEnv, keyPath: readonly string[]): string | undefined {
  const key = keyPath.join('.');
  const secret = SECRET_FILE_BINDINGS.find((binding) => binding.path.join('.') === key);
  if (secret && !env[secret.name]?.trim() && env[`${secret.name}_FILE`]?.trim()) return `${secret.name}_FILE`;
  for (const binding of ENV_BINDINGS.filter((b) => b.path.join('.') === key)) {
    if (env[binding.name]?.trim()) return binding.name;
    // HTTP_PROXY and its kin are also read in lower case, as curl reads them.
    if (binding.name.endsWith('PROXY') && env[binding.name.toLowerCase()]?.trim()) return binding.name.toLowerCase();
  }
  return undefined;
}

function sets(value: Record<string, unknown>, keyPath: readonly string[]): boolean {
  let node: unknown = value;
  for (const key of keyPath) {
    if (!isRecord(node) || !(key in node) || node[key] === undefined) return false;
    node = node[key];
  }
  return true;
}

function display(value: unknown): string {
  if (Array.isArray(value))
    return value.length === 0 ? '(none)' : value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(', ');
  if (typeof value === 'string') return maskUrl(value);
  if (isRecord(value)) return Object.keys(value).length === 0 ? '(none)' : JSON.stringify(value);
  return String(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function asRecord(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}
