import type { Catalog } from '#web/i18n.js';

/** The words of the team, account, keys and security log pages (Spanish first, English on request). */
export const TEAM_MESSAGES: Catalog = {
  'es-CO': {},
  en: {},
};
