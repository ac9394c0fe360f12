import {describe, expect, it} from 'vitest';
import {redactUrl, scrubUrl} from '../../src/notify/redact-url.js';

// A webhook's URL carries its secret in the path (Slack, Mattermost, Discord), the query or as user:password: only
// the scheme and host may ever be said.

describe('redactUrl', () => {
	it.each([
		['https://hooks.slack.com/services/T000/B000/XXXXXXXX', 'https://hooks.slack.com/…'],
		['https://discord.com/api/webhooks/123/abc-token', 'https://discord.com/…'],
		['http://127.0.0.1:8080/hook?key=secret', 'http://127.0.0.1:8080/…'],
		['https://user:password@example.com/', 'https://example.com/…'],
		['https://example.com/#frag', 'https://example.com/…'],
		['https://example.com', 'https://example.com/'],
		['http://[::1]:9000/x', 'http://[::1]:9000/…'],
	])('%s → %s', (url, shown) => {
		expect(redactUrl(url)).toBe(shown);
	});

	it('says nothing of a URL it cannot read', () => {
		expect(redactUrl('not a url/with-secret')).toBe('the webhook URL');
	});
});

describe('scrubUrl', () => {
	const url = 'https://bot:pa55word@hooks.example.com/services/T0/B0/Tok%20en?key=k3y';

	it('takes the URL, its path, query and credentials out of a message', () => {
		const said = scrubUrl(
			`Failed to parse URL from ${url}; GET /services/T0/B0/Tok en?key=k3y by bot:pa55word, ${new URL(url).href}`,
			url,
		);
		for (const secret of ['/services', 'Tok', '?key', 'k3y', 'pa55word', 'bot']) expect(said).not.toContain(secret);
		expect(said).toContain('Failed to parse URL from …');
	});

	it('leaves a message without the URL as it is', () => {
		expect(scrubUrl('connect ECONNREFUSED 127.0.0.1:9', url)).toBe('connect ECONNREFUSED 127.0.0.1:9');
	});
});
