/**
 * The dashboard's customer search (issue 31 §1): the terms a customer is found by, and the forms a
 * typed word is looked up in. Both sides are normalised alike: lower case, accents removed (NFD, marks
 * dropped), so "Pérez" is found by "perez" and "PEREZ". A typed word matches a term it starts.
 */

/** Lower case without accents ("José PÉREZ" → "jose perez"). */
export function normaliseSearch(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();
}

/** Letters and digits only ("1.020.304-5" → "10203045"). */
const alnum = (text: string) => text.replace(/[^\p{L}\p{N}]+/gu, '');

/** At most this many characters of a term are kept (a prefix of a longer value still finds it). */
export const MAX_TERM_LENGTH = 64;

/**
 * A customer's terms: the e-mail whole and its local part; each word of the name (as typed between
 * spaces, and its parts between punctuation: "o'neil" gives "oneil", "o" and "neil"); the document
 * number's letters and digits. Distinct, in a stable order.
 */
export function customerSearchTerms(customer: { email?: string | null; name?: string | null; document_number?: string | null }): string[] {
  const terms = new Set<string>();
  const add = (term: string) => {
    if (term) terms.add(term.slice(0, MAX_TERM_LENGTH));
  };
  if (customer.email) {
    const email = normaliseSearch(customer.email);
    add(email);
    add(email.split('@')[0]);
  }
  for (const word of normaliseSearch(customer.name ?? '').split(/\s+/u)) {
    add(alnum(word));
    for (const part of word.split(/[^\p{L}\p{N}]+/u)) add(part);
  }
  if (customer.document_number) add(alnum(normaliseSearch(customer.document_number)));
  return [...terms];
}

/**
 * The words of a search, each with the forms it is looked up in (as typed, and its letters and digits
 * only: "1.020.304" finds the document 1020304050, "ana.perez" the e-mail's local part). Every word
 * must match (one of its forms starts a term of the customer's). At most 5 words.
 */
export function searchWords(q: string): string[][] {
  return normaliseSearch(q)
    .split(/\s+/u)
    .filter(Boolean)
    .slice(0, 5)
    .map((word) => [...new Set([word.slice(0, MAX_TERM_LENGTH), alnum(word).slice(0, MAX_TERM_LENGTH)])].filter(Boolean))
    .filter((forms) => forms.length > 0);
}
