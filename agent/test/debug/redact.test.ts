import { describe, expect, it } from 'vitest';
import { REDACTED, isSecretName, redactSecrets, redactText, secretValuesIn } from '../../src/debug/redact.js';

describe('isSecretName', () => {
  it('says secret, token, password and key in any spelling, and not words that merely contain "key"', () => {
    for (const name of ['DB_PASSWORD', 'passwd', 'provisioningToken', 'provisioning-token', 'AWS_SECRET_ACCESS_KEY']) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of ['API_KEY', 'apiKey', 'sshKey', 'key', 'privateKey', 'Authorization', 'credential']) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of ['monkey', 'keyboard', 'keyValues', 'PATH', 'PWD', 'name', 'httpProxy']) {
      expect(isSecretName(name), name).toBe(false);
    }
  });
});

describe('redactSecrets (JSON)', () => {
  it('replaces secret members, secret environment values and URL passwords, keeping the rest', () => {
    expect(
      redactSecrets({
        provisioningToken: 'opt_x',
        proxyConfig: { httpProxy: 'http://me:pw@proxy:3128', noProxy: 'localhost' },
        env: [
          { name: 'DB_PASSWORD', value: 'hunter2' },
          { name: 'MODE', value: 'fast' },
        ],
      }),
    ).toEqual({
      provisioningToken: REDACTED,
      proxyConfig: { httpProxy: `http://me:${REDACTED}@proxy:3128`, noProxy: 'localhost' },
      env: [
        { name: 'DB_PASSWORD', value: REDACTED },
        { name: 'MODE', value: 'fast' },
      ],
    });
  });

  it('finds the same values as secrets to look for in text', () => {
    const found = secretValuesIn({
      token: 'tok-123456',
      spec: { proxyConfig: { httpProxy: 'http://me:p%40ss-word@proxy' } },
      pods: [
        {
          env: [
            { name: 'API_KEY', value: 'k-987654' },
            { name: 'MODE', value: 'fast' },
          ],
        },
      ],
    });
    expect([...found].sort()).toEqual(['k-987654', 'p@ss-word', 'tok-123456']);
  });
});

describe('redactText', () => {
  const cases: [string, string][] = [
    ['using sEcReT-v4lue-99 now', `using ${REDACTED} now`],
    ['https://user:pa55word@host/x', `https://user:${REDACTED}@host/x`],
    ['token opt_abcdefghijklmnopqrstuvwxyz0123', `token opt_${REDACTED}`],
    ['Authorization: Bearer abc.def', `Authorization: Bearer ${REDACTED}`],
    ['{"apiKey":"v","name":"n"}', `{"apiKey":"${REDACTED}","name":"n"}`],
    ['droplet --provisioning-token tok --device-id gw-1', `droplet --provisioning-token ${REDACTED} --device-id gw-1`],
    ['app --password=pw -v', `app --password=${REDACTED} -v`],
    ['DB_PASSWORD=pw MODE=fast', `DB_PASSWORD=${REDACTED} MODE=fast`],
    [
      '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\nBBBB\n-----END OPENSSH PRIVATE KEY-----',
      `-----BEGIN OPENSSH PRIVATE KEY-----\n${REDACTED}\n-----END OPENSSH PRIVATE KEY-----`,
    ],
    // a flag-like word at a line's end says nothing of the next line
    ['run a-secrets.ts\nroot 12 sleep', 'run a-secrets.ts\nroot 12 sleep'],
    ['PATH=/usr/bin PWD=/root', 'PATH=/usr/bin PWD=/root'],
  ];
  it.each(cases)('%j', (text, expected) => {
    expect(redactText(text, ['sEcReT-v4lue-99'])).toBe(expected);
  });

  it('finds a known value also as JSON and URLs escape it', () => {
    expect(redactText('{"v":"a\\"quoted\\"b"} and p%40ss-word', ['a"quoted"b', 'p@ss-word'])).toBe(
      `{"v":"${REDACTED}"} and ${REDACTED}`,
    );
  });
});
