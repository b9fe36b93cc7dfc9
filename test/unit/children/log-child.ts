// Child of the logger test: logs the lines the test asks for through the
// service's logger into a file, then exits at once, before any timer runs.
import { createLogger } from '../../../src/log/logger.js';

const [file, count] = process.argv.slice(2);
if (file === undefined || count === undefined) throw new Error('usage: log-child.ts <file> <count>');

const logger = createLogger({ destination: file });
for (let i = 0; i < Number(count); i++) logger.info({ i, text: i % 100 === 0 ? 'grüße ✓ 日本' : 'plain' }, 'line');
logger.info({ text: 'é'.repeat(40_000) }, 'long line'); // more than a batch holds
logger.info('last');
process.exit(0);
