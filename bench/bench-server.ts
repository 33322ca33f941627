// A local OpenAI-compatible server for the launch benchmarks: it notes when each request
// arrives (hrtime, in this process, so it shares the launcher's clock) and when its answer
// went out, and answers as the bench says (text, or one tool call).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Arrival {
	model: string;
	at: bigint;
	system: string;
	tools: string[];
	lastRole: string;
	/** The last message's text (a tool's result, when lastRole is "tool"). */
	lastText: string;
	/** When the answer to it was sent in full. */
	repliedAt?: bigint;
}

export type Reply = { text: string } | { toolCall: { name: string; args: unknown } };

export interface BenchServer {
	baseUrl: string;
	arrivals: Arrival[];
	/** Resolves with the first request for `model` that arrives after `since` (hrtime). */
	next(model: string, since: bigint): Promise<Arrival>;
	close(): Promise<void>;
}

export function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (Array.isArray(content)) return content.map((c) => (typeof c?.text === "string" ? c.text : "")).join("");
	return "";
}

export async function startServer(answer: (arrival: Arrival) => Reply | Promise<Reply>): Promise<BenchServer> {
	const arrivals: Arrival[] = [];
	const waiters: Array<{ model: string; since: bigint; resolve: (a: Arrival) => void }> = [];
	const server = createServer((req: IncomingMessage, res: ServerResponse) => {
		const at = process.hrtime.bigint(); // the request's head is here; its body follows
		if (req.method === "GET") {
			res.writeHead(200, { "content-type": "application/json" });
			res.end(JSON.stringify({ object: "list", data: [] }));
			return;
		}
		let raw = "";
		req.on("data", (d) => (raw += d));
		req.on("end", async () => {
			const body = JSON.parse(raw || "{}");
			const messages: Array<{ role: string; content?: unknown }> = body.messages ?? [];
			const arrival: Arrival = {
				model: String(body.model),
				at,
				system: textOf(messages.find((m) => m.role === "system" || m.role === "developer")?.content),
				tools: (body.tools ?? []).map((t: { function: { name: string } }) => t.function.name).sort(),
				lastRole: messages.at(-1)?.role ?? "",
				lastText: textOf(messages.at(-1)?.content),
			};
			arrivals.push(arrival);
			for (const w of [...waiters]) {
				if (w.model === arrival.model && arrival.at > w.since) {
					waiters.splice(waiters.indexOf(w), 1);
					w.resolve(arrival);
				}
			}
			let reply: Reply;
			try {
				reply = await answer(arrival);
			} catch (error) {
				res.writeHead(500, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: String(error) } }));
				return;
			}
			res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
			const send = (delta: unknown, finish: string | null = null) =>
				res.write(
					`data: ${JSON.stringify({ id: "bench", object: "chat.completion.chunk", created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...(finish ? { usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } } : {}) })}\n\n`,
				);
			send({ role: "assistant", content: "" });
			if ("text" in reply) {
				send({ content: reply.text });
				send({}, "stop");
			} else {
				send({
					tool_calls: [
						{
							index: 0,
							id: `call_${arrivals.length}`,
							type: "function",
							function: { name: reply.toolCall.name, arguments: JSON.stringify(reply.toolCall.args) },
						},
					],
				});
				send({}, "tool_calls");
			}
			res.write("data: [DONE]\n\n");
			res.end();
			arrival.repliedAt = process.hrtime.bigint();
		});
	});
	await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		arrivals,
		next(model, since) {
			const seen = arrivals.find((a) => a.model === model && a.at > since);
			if (seen) return Promise.resolve(seen);
			return new Promise((resolveArrival) => waiters.push({ model, since, resolve: resolveArrival }));
		},
		close: () =>
			new Promise<void>((done) => {
				server.closeAllConnections();
				server.close(() => done());
			}),
	};
}

export function bounded<T>(promise: Promise<T>, what: string, timeoutMs = 60_000): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`${what}: no result after ${timeoutMs} ms`)), timeoutMs);
	});
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
