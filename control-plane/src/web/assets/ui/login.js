/** The first screen: paste an API key once; it is kept for this tab only (sessionStorage). */
import { h, show } from './dom.js';

/**
 * @param {Element} view
 * @param {(apiKey: string) => Promise<void>} signIn checks the key against the API; rejects with its error
 */
export function renderLogin(view, signIn) {
  const messages = h('div');
  const input = h('input', {
    type: 'password',
    name: 'apiKey',
    autocomplete: 'off',
    required: true,
    placeholder: 'opk_...',
  });
  const form = h(
    'form',
    { class: 'inline' },
    h('label', {}, 'API key', input),
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (key === '') return;
    signIn(key).catch((err) => show(messages, 'error', err));
  });
  view.replaceChildren(
    h(
      'section',
      { class: 'card' },
      h('h1', {}, 'Outpost dashboard'),
      h(
        'p',
        { class: 'muted' },
        'Paste an API key (Authorization: Bearer). It is kept in this tab only, until the tab closes or you forget it.',
      ),
      messages,
      form,
    ),
  );
  input.focus();
}
