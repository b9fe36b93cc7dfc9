// The README's table of settings, made from the schema so that the docs
// cannot drift from the code (a unit test compares the two).
import { SETTINGS, type Setting } from './config-sources.js';

function defaultText(setting: Setting): string {
  if (setting.meta.defaultText !== undefined) return setting.meta.defaultText;
  const value = setting.defaultValue;
  if (value === false) return 'off';
  return `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
}

/** The Markdown table of every setting: flag, environment variable, config key, default, meaning. */
export function configTable(): string {
  const rows = SETTINGS.map((setting) => {
    const flag = setting.meta.flag === undefined ? '' : `\`${setting.meta.flag}\``;
    return `| ${flag} | \`${setting.env}\` | \`${setting.path.join('.')}\` | ${defaultText(setting)} | ${setting.meta.description} |`;
  });
  return ['| flag | environment | config key | default | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}
