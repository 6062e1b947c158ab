/**
 * What every screen of the dashboard is given.
 * @typedef {object} Context
 * @property {import('../api/client.js').DashboardClient} client the REST API, with the tab's API key
 * @property {string} apiKey for the byte transfers (XMLHttpRequest)
 * @property {(route: import('../api/routes.js').Route) => void} navigate
 * @property {import('./live.js').LiveStreams} live the screen's watch streams (closed when it is left)
 */
export {};
