// `npm run build`: copies every library's page templates (libs/*/views) and static files (libs/*/static)
// beside the compiled code in dist/, where the page renderer looks for them.
import { cpSync, existsSync, readdirSync } from 'node:fs';
for (const lib of readdirSync('libs')) {
  for (const dir of ['views', 'static']) {
    const from = `libs/${lib}/${dir}`;
    if (existsSync(from)) cpSync(from, `dist/libs/${lib}/${dir}`, { recursive: true });
  }
}
