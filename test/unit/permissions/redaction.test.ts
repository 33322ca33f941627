// The arbiter's preview of a call's arguments: a corpus of realistic credentials (documented
// example values and made-up ones of the real shapes), none of which may survive in any part,
// and ordinary code, which must come through intact.
import { describe, expect, it } from "vitest";
import { PREVIEW_CHARS, previewArguments } from "../../../src/permissions/index.ts";

const AWS_ID = "AKIAIOSFODNN7EXAMPLE";
const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const GHP = "ghp_R4nd0mL00k1ngT0k3nV4lu3F0rT3st1ng0a";
const GH_PAT = "github_pat_11ABCDEFG0aBcDeFgHiJkL_MnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz01234";
const OPENAI = "sk-9aB8cD7eF6gH5iJ4kL3mN2oP1qR0sT9uV8wX7yZ6aB5cD4eF";
const OPENAI_PROJ = "sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe_dC-bA9zY8xW7vU6tS5rQ4pO3nM2lK1jI0hG";
const ANTHROPIC =
	"sk-ant-api03-Qw3rTy8uIoP1aSdFgHjKlZxCvBnM0qWeRtYuIoPaSdFgHjKlZxCvBnMqWeRtYuIoPaSdFgHjKlZxCvBnM-AbCdEfAA";
const JWT =
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
const PEM_BODY =
	"MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvredZiKRkgwlL9xNAwxXFg0x/XFw005UWVRIkdgcKWTjpBP2dPwVZ4WWC+9aGVd+Gyn1o0CLelf4rEjGoXbAAEgAqeGUxrcIlbjXfbcmwIDAQABAoIBAQCr";
const PEM = `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY.match(/.{1,64}/g)?.join("\n")}\n-----END RSA PRIVATE KEY-----`;
const OPENSSH_BODY =
	"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACDk7mZq9pIu1X8rHpVtR6nR3w";
const OPENSSH = `-----BEGIN OPENSSH PRIVATE KEY-----\n${OPENSSH_BODY}\n-----END OPENSSH PRIVATE KEY-----`;
const DB_PASSWORD = "Tr0ub4dor&3xyz";
const BASIC_PASSWORD = "hunter2hunter2";
const BEARER = "abcDEF123ghiJKL456mnoPQR789stuVWX";
const BASIC_HEADER = "YWxhZGRpbjpvcGVuc2VzYW1lMTIz";
const GOOGLE = "AIzaSyD4_EXAMPLEk3yV4lu3abcdefghijklmno";
const SLACK = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx";
const STRIPE = "sk_live_51H7exampleAbCdEfGhIjKlMnOpQrSt";
const PLAIN_PASSWORD = "correct horse battery staple";
const CLIENT_SECRET = "9f8e7d6c5b4a39281706f5e4d3c2b1a0";
const NPM = "npm_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3hJ5";

/** Tool calls as agents really make them, each with the secrets it carries. */
const CORPUS: Array<{ name: string; input: unknown; secrets: string[] }> = [
	{
		name: "a .env file being written",
		input: {
			path: ".env",
			content: `AWS_ACCESS_KEY_ID=${AWS_ID}\nAWS_SECRET_ACCESS_KEY=${AWS_SECRET}\nOPENAI_API_KEY=${OPENAI_PROJ}\nexport ANTHROPIC_API_KEY="${ANTHROPIC}"\nDATABASE_URL=postgres://app:${DB_PASSWORD}@db.internal:5432/app\nNODE_ENV=production\n`,
		},
		secrets: [AWS_ID, AWS_SECRET, OPENAI_PROJ, ANTHROPIC, DB_PASSWORD],
	},
	{
		name: "AWS credentials in code",
		input: {
			path: "src/s3.ts",
			content: `const client = new S3Client({\n\tregion: "eu-west-1",\n\tcredentials: { accessKeyId: "${AWS_ID}", secretAccessKey: "${AWS_SECRET}" },\n});\n`,
		},
		secrets: [AWS_ID, AWS_SECRET],
	},
	{
		name: "an AWS credentials file",
		input: {
			path: "/home/me/.aws/credentials",
			content: `[default]\naws_access_key_id = ${AWS_ID}\naws_secret_access_key = ${AWS_SECRET}\n`,
		},
		secrets: [AWS_ID, AWS_SECRET],
	},
	{ name: "a GitHub token in a remote URL", input: { url: `https://${GHP}@github.com/acme/app.git` }, secrets: [GHP] },
	{
		name: "a fine-grained GitHub token in a request",
		input: {
			url: "https://api.github.com/repos/acme/app",
			headers: `Accept: application/json\nX-Token-Note: ${GH_PAT}`,
		},
		secrets: [GH_PAT],
	},
	{
		name: "an OpenAI key in Python",
		input: {
			path: "client.py",
			content: `import openai\nclient = openai.OpenAI(api_key="${OPENAI}")\nprint(client.models.list())\n`,
		},
		secrets: [OPENAI],
	},
	{ name: "an Anthropic key passed bare", input: { query: `use key ${ANTHROPIC} for the call` }, secrets: [ANTHROPIC] },
	{
		name: "a JWT in a fetch",
		input: {
			path: "src/api.ts",
			content: `await fetch(url, { headers: { cookie: "session=${JWT}" } });\nconst t = "${JWT}";\n`,
		},
		secrets: [JWT],
	},
	{
		name: "an RSA private key",
		input: { path: "deploy/key.pem", content: `${PEM}\n` },
		secrets: [PEM_BODY.slice(0, 64), PEM_BODY.slice(64, 128), PEM_BODY.slice(-40)],
	},
	{
		name: "an OpenSSH private key in JSON",
		input: { config: { name: "deploy", key: OPENSSH } },
		secrets: [OPENSSH_BODY],
	},
	{
		name: "basic-auth URLs",
		input: {
			url: `https://alice:${BASIC_PASSWORD}@example.com/private`,
			mirror: `redis://:${DB_PASSWORD}@cache:6379/0`,
		},
		secrets: [BASIC_PASSWORD, DB_PASSWORD],
	},
	{
		name: "bearer and basic headers",
		input: {
			args: `-H "Authorization: Bearer ${BEARER}" -H 'Proxy-Authorization: Basic ${BASIC_HEADER}' https://api.example.com`,
		},
		secrets: [BEARER, BASIC_HEADER],
	},
	{ name: "a bearer token in prose", input: { message: `call it with Bearer ${BEARER} please` }, secrets: [BEARER] },
	{
		name: "secrets under secret-looking keys",
		input: {
			username: "alice",
			password: PLAIN_PASSWORD,
			nested: { headers: { "x-api-key": GOOGLE, Authorization: `Token ${BEARER}` } },
		},
		secrets: [PLAIN_PASSWORD, GOOGLE, BEARER],
	},
	{
		name: "vendor keys in YAML",
		input: {
			path: "config.yml",
			content: `slack:\n  bot_token: ${SLACK}\nstripe:\n  key: ${STRIPE}\noauth:\n  client_secret: ${CLIENT_SECRET}\nnpm: ${NPM}\n`,
		},
		secrets: [SLACK, STRIPE, CLIENT_SECRET, NPM],
	},
	{
		name: "a Google key assigned in JS",
		input: { path: "maps.js", content: `const mapsApiKey = '${GOOGLE}';\n` },
		secrets: [GOOGLE],
	},
	{
		name: "a secret just before the preview's end",
		input: { path: "big.txt", content: `${"x".repeat(PREVIEW_CHARS - 70)} token ${OPENAI_PROJ} tail` },
		secrets: [OPENAI_PROJ],
	},
];

/** Every 10-character piece of a secret (or the whole, when shorter): no fragment may survive. */
function fragments(secret: string): string[] {
	if (secret.length <= 10) return [secret];
	return Array.from({ length: secret.length - 9 }, (_, i) => secret.slice(i, i + 10));
}

describe("the preview of a call's arguments", () => {
	for (const c of CORPUS) {
		it(`keeps no credential of ${c.name}`, () => {
			const preview = previewArguments(c.input);
			expect(preview.length).toBeLessThanOrEqual(PREVIEW_CHARS);
			for (const secret of c.secrets) {
				const left = fragments(secret).filter((f) => preview.includes(f));
				expect(left, `${c.name}: ${preview}`).toEqual([]);
			}
			expect(preview).toContain("[redacted");
		});
	}

	const CODE: Array<{ name: string; input: Record<string, string> }> = [
		{
			name: "TypeScript",
			input: {
				path: "src/auth/session.ts",
				content: [
					'import { createHash } from "node:crypto";',
					"export interface Credentials { user: string; password: string; token?: string }",
					"export function hashPassword(password: string, salt: string): string {",
					'\treturn createHash("sha256").update(salt).update(password).digest("hex");',
					"}",
					"const token = readToken(request.headers);",
					'if (!process.env.API_KEY) throw new Error("API_KEY is not set");',
					"// see https://example.com/docs/auth#tokens and commit 3f786850e387550fdab836ed7e6dc881de23001b",
					"export const MAX_RETRIES = 3;",
				].join("\n"),
			},
		},
		{
			name: "Python",
			input: {
				path: "app/views.py",
				content:
					'def login(request):\n    password = request.POST["password"]\n    if not check(password):\n        return HttpResponse(status=401)\n    return redirect("/home")\n',
			},
		},
		{
			name: "a shell script",
			input: {
				path: "scripts/test.sh",
				content:
					'#!/bin/sh\nset -eu\nnpm ci\nnpm test -- --reporter=dot\ngit log --oneline -5\necho "done in $(pwd)"\n',
			},
		},
		{
			name: "an edit",
			input: {
				path: "README.md",
				oldText: "Run `npm test`.",
				newText: "Run `npm test` and `npm run lint`; see https://github.com/acme/app/blob/main/CONTRIBUTING.md.",
			},
		},
	];
	for (const c of CODE) {
		it(`keeps ordinary ${c.name} intact`, () => {
			const preview = previewArguments(c.input);
			for (const [key, value] of Object.entries(c.input)) expect(preview).toContain(`${key}: ${value}`);
			expect(preview).not.toContain("[redacted");
		});
	}

	it("cuts long arguments to the preview's size", () => {
		const preview = previewArguments({ path: "big.ts", content: "export const x = 1;\n".repeat(1000) });
		expect(preview.length).toBeLessThanOrEqual(PREVIEW_CHARS);
		expect(preview.startsWith("path: big.ts\ncontent: export const x = 1;")).toBe(true);
	});
});
