// A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for driving the real `pi`
// CLI. Each request is answered by the script (a function of the request), streamed as SSE.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatRequest {
	model: string;
	messages: Array<{ role: string; content?: unknown; tool_calls?: unknown }>;
	tools?: Array<{ function: { name: string } }>;
	authorization?: string;
}

export type Reply =
	| { text: string }
	| { toolCalls: Array<{ name: string; args: Record<string, unknown> }> }
	/** An HTTP error: the body is OpenAI's `{error: {message, type}}`; `headers` e.g. a retry-after. */
	| { status: number; error: string; type?: string; headers?: Record<string, string> }
	/** Never answers (a model that hangs); the connection is cut when the server closes. */
	| { hang: true }
	/** A slow model: `reply` is answered after `after` ms. */
	| { after: number; reply: Reply }
	/** A model that answers when the test says so: `reply` once `gate` settles. */
	| { gate: Promise<unknown>; reply: Reply };

export type Script = (request: ChatRequest, index: number) => Reply;

export interface ScriptedServer {
	baseUrl: string;
	requests: ChatRequest[];
	close(): Promise<void>;
}

/** "call {json}" makes the model call `subagent` with that json; after the result it echoes it. */
export function subagentCallScript(request: ChatRequest): Reply {
	const last = request.messages.at(-1);
	if (last?.role === "tool") return { text: `RESULT ${textOf(last.content)}` };
	const prompt = textOf(last?.content);
	if (prompt.startsWith("call ")) return { toolCalls: [{ name: "subagent", args: JSON.parse(prompt.slice(5)) }] };
	return { text: "plain answer" };
}

/** A reviewer that raises one finding with `args`, then, told it was recorded, is done. */
export function reviewerWarns(request: ChatRequest, args: Record<string, unknown>): Reply {
	if (request.messages.at(-1)?.role === "tool") return { text: "Reported." };
	return { toolCalls: [{ name: "watchdog_warn", args }] };
}

export function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (Array.isArray(content)) return content.map((c) => (typeof c?.text === "string" ? c.text : "")).join("");
	return "";
}

export async function startScriptedServer(script: Script): Promise<ScriptedServer> {
	const requests: ChatRequest[] = [];
	const server: Server = createServer((req, res) => {
		if (req.method === "GET" && req.url?.endsWith("/models")) {
			res.writeHead(200, { "content-type": "application/json" });
			res.end(JSON.stringify({ object: "list", data: [] }));
			return;
		}
		let raw = "";
		req.on("data", (d) => (raw += d));
		req.on("end", () => {
			const body = JSON.parse(raw || "{}");
			const request: ChatRequest = {
				model: body.model,
				messages: body.messages ?? [],
				tools: body.tools,
				authorization: req.headers.authorization,
			};
			requests.push(request);
			let reply: Reply;
			try {
				reply = script(request, requests.length - 1);
			} catch (error) {
				reply = { status: 500, error: `script failed: ${(error as Error).message}` };
			}
			respond(reply, request.model);
		});
		const respond = (reply: Reply, model: string): void => {
			if ("after" in reply) {
				setTimeout(() => respond(reply.reply, model), reply.after);
				return;
			}
			if ("gate" in reply) {
				void reply.gate.finally(() => respond(reply.reply, model));
				return;
			}
			if ("hang" in reply) return;
			if ("status" in reply) {
				res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
				res.end(JSON.stringify({ error: { message: reply.error, type: reply.type ?? "test_error" } }));
				return;
			}
			res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
			const send = (delta: unknown, finish: string | null = null, usage?: unknown) =>
				res.write(
					`data: ${JSON.stringify({ id: "chatcmpl-test", object: "chat.completion.chunk", created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`,
				);
			const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
			send({ role: "assistant", content: "" });
			if ("text" in reply) {
				send({ content: reply.text });
				send({}, "stop", usage);
			} else {
				reply.toolCalls.forEach((call, index) => {
					send({
						tool_calls: [
							{
								index,
								id: `call_${requests.length}_${index}`,
								type: "function",
								function: { name: call.name, arguments: "" },
							},
						],
					});
					send({ tool_calls: [{ index, function: { arguments: JSON.stringify(call.args) } }] });
				});
				send({}, "tool_calls", usage);
			}
			res.write("data: [DONE]\n\n");
			res.end();
		};
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}
