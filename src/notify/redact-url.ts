// A webhook's URL is a secret: Slack's, Mattermost's and Discord's incoming webhooks carry their token in the path,
// others in the query or as user:password. What traintop says about a webhook names only where it goes.

/** `https://hooks.slack.com/services/T0/B0/XyZ` → `https://hooks.slack.com/…`: scheme and host, nothing else. */
export function redactUrl(url: string): string {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		// Nothing of it can be told apart from its secret.
		return 'the webhook URL';
	}
	const bare = parsed.pathname === '/' && parsed.search === '' && parsed.hash === '';
	const secret = parsed.username !== '' || parsed.password !== '' || !bare;
	return `${parsed.protocol}//${parsed.host}/${secret ? '…' : ''}`;
}

/**
 * `text` (an error from fetch, a cause's message) with the URL and each secret part of it replaced by `…`: undici
 * names the URL it failed to parse or reach, and a proxy's error may echo the path.
 */
export function scrubUrl(text: string, url: string): string {
	let parsed: URL | null = null;
	try {
		parsed = new URL(url);
	} catch {
		// Only the text as given can be scrubbed.
	}
	const secrets = [
		url,
		parsed?.href,
		parsed?.pathname,
		parsed?.search,
		parsed?.hash,
		parsed?.username,
		parsed?.password,
	]
		.filter((part): part is string => part !== undefined && part.length > 1)
		// Decoded forms too: a message may quote the path as the user typed it or as it was sent.
		.flatMap(part => [part, safeDecode(part)])
		.sort((a, b) => b.length - a.length);
	let out = text;
	for (const secret of secrets) out = out.split(secret).join('…');
	return out;
}

function safeDecode(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}
