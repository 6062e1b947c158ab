/** The API key of this browser tab: pasted once, kept in sessionStorage (gone when the tab closes). */

const KEY = 'outpost.apiKey';

/** @returns {string | undefined} */
export function storedApiKey() {
  return sessionStorage.getItem(KEY) ?? undefined;
}

/** @param {string} apiKey */
export function storeApiKey(apiKey) {
  sessionStorage.setItem(KEY, apiKey);
}

export function forgetApiKey() {
  sessionStorage.removeItem(KEY);
}
