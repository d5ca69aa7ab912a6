/**
 * Languages of the customer-facing pages: Spanish for Colombia by default, English on request
 * (`?locale=en`, or a hidden `locale` field in forms). A message catalog is a plain object per
 * locale; page libraries bring their own and merge it with the common one.
 */
export const LOCALES = ['es-CO', 'en'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'es-CO';

/** `es`, `es-CO`, `en`, `en-US`… → a supported locale; anything else → the default (es-CO). */
export function resolveLocale(value: unknown): Locale {
  if (typeof value !== 'string') return DEFAULT_LOCALE;
  const v = value.trim().toLowerCase();
  if (v === 'en' || v.startsWith('en-')) return 'en';
  return DEFAULT_LOCALE;
}

/** The language tag for `<html lang>`. */
export const htmlLang = (locale: Locale) => (locale === 'en' ? 'en' : 'es-CO');

export type Messages = Record<string, string>;
export type Catalog = Record<Locale, Messages>;

/** Messages every page shares (layout, errors). */
export const COMMON_MESSAGES: Catalog = {
  'es-CO': {
    'layout.skip': 'Saltar al contenido',
    'layout.language': 'Idioma',
    'layout.footer': 'Pago seguro',
    'layout.test_mode': 'Modo de prueba: no se mueve dinero real',
    'error.title': 'Algo salió mal',
    'error.not_found.title': 'Página no encontrada',
    'error.not_found.body': 'La dirección no existe o ya no está disponible. Revisa el enlace que recibiste.',
    'error.forbidden.title': 'No tienes permiso',
    'error.forbidden.body': 'Tu rol en el equipo no permite esta acción. Nada cambió. Si la necesitas, pídela a un administrador de la cuenta.',
    'error.csrf.title': 'Tu sesión expiró',
    'error.csrf.body': 'Por seguridad no pudimos procesar el formulario. Vuelve a la página e inténtalo otra vez.',
    'error.bad_request.title': 'No pudimos procesar la solicitud',
    'error.internal.body': 'Tuvimos un problema inesperado. No se realizó ningún cobro adicional; inténtalo de nuevo en unos minutos.',
    'error.reference': 'Referencia',
    'error.back': 'Volver',
  },
  en: {
    'layout.skip': 'Skip to content',
    'layout.language': 'Language',
    'layout.footer': 'Secure payment',
    'layout.test_mode': 'Test mode: no real money moves',
    'error.title': 'Something went wrong',
    'error.not_found.title': 'Page not found',
    'error.not_found.body': 'This address does not exist or is no longer available. Check the link you received.',
    'error.forbidden.title': 'You do not have permission',
    'error.forbidden.body': 'Your role in the team does not allow this. Nothing changed. If you need it, ask an administrator of the account.',
    'error.csrf.title': 'Your session expired',
    'error.csrf.body': 'For your security we could not process the form. Go back to the page and try again.',
    'error.bad_request.title': 'We could not process the request',
    'error.internal.body': 'We had an unexpected problem. No additional charge was made; please try again in a few minutes.',
    'error.reference': 'Reference',
    'error.back': 'Go back',
  },
};

/** Several catalogs as one (later ones win), e.g. a page library's own with the API errors' words. */
export const mergeCatalogs = (...catalogs: Catalog[]): Catalog => ({
  'es-CO': Object.assign({}, ...catalogs.map((c) => c['es-CO'])),
  en: Object.assign({}, ...catalogs.map((c) => c.en)),
});

export type Translate = (key: string, params?: Record<string, string | number>) => string;

/** A translator over the catalogs (later ones win); a missing key shows the key itself (never throws). */
export function translator(locale: Locale, ...catalogs: Catalog[]): Translate {
  const merged: Messages = Object.assign({}, ...[COMMON_MESSAGES, ...catalogs].map((c) => c[locale]));
  const fallback: Messages = Object.assign({}, ...[COMMON_MESSAGES, ...catalogs].map((c) => c[DEFAULT_LOCALE]));
  return (key, params = {}) => {
    const template = merged[key] ?? fallback[key] ?? key;
    return template.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m));
  };
}
