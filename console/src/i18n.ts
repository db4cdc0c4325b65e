import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import translation from '@openshift-assisted/locales/en/translation.json';

const dateTimeFormatter = new Intl.DateTimeFormat('default', {
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  year: 'numeric',
});

// The library's keys contain ':' and '.', so both separators are switched off the way it expects.
// Its plurals are i18next's v3 JSON ("key" and "key_plural"); i18next 21 reads v4 ("key_one",
// "key_other") unless told, and would say "Installing 2 worker".
void i18n.use(initReactI18next).init({
  compatibilityJSON: 'v3',
  lng: 'en',
  resources: { en: { translation } },
  supportedLngs: ['en'],
  fallbackLng: 'en',
  load: 'languageOnly',
  defaultNS: 'translation',
  nsSeparator: '~',
  keySeparator: false,
  interpolation: {
    format(value: unknown, format?: string, lng?: string) {
      if (format === 'number' && (typeof value === 'number' || typeof value === 'bigint')) return new Intl.NumberFormat(lng).format(value);
      if (value instanceof Date) return dateTimeFormatter.format(value);
      return String(value);
    },
    escapeValue: false,
  },
  react: { useSuspense: true, transSupportBasicHtmlNodes: true },
});

export default i18n;
