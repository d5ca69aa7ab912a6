import { runCli, USAGE, UsageError } from './cli.js';

/** `npm run cli -- …`: see USAGE in cli.ts. */
runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof UsageError) console.error(`${error.message}\n\n${USAGE}`);
    else console.error(error instanceof Error ? error.message : error);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
