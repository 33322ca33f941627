// A live session's mailbox: the fleet puts a message file in the session's folder and waits
// (bounded) for the session's acknowledgement, which says whether the session's sink sent it to
// the model. A message is claimed by renaming it, so it is delivered once; one that was never
// claimed in time is withdrawn, so it cannot land later unannounced.
import { randomBytes } from "node:crypto";
import { readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { processAlive, readJsonIn, writeJsonAtomic } from "./files.ts";

export interface MailMessage {
	id: string;
	/** What the session's model is to read. */
	text: string;
	/** Why it was sent, for the session's own record. */
	reason: string;
	at: string;
}

export interface Ack {
	delivered: boolean;
	reason?: string;
}

const ID = /^[0-9a-f]{8,32}$/;
const POLL_MS = 100;
/** After a withdrawal failed (the session had claimed it), how long the ack may still take. */
const LATE_ACK_MS = 3000;

export async function sendMail(
	mailbox: string,
	pid: number,
	message: Omit<MailMessage, "id" | "at">,
	timeoutMs: number,
): Promise<Ack> {
	const id = randomBytes(8).toString("hex");
	const path = join(mailbox, `${id}.msg.json`);
	const ackPath = join(mailbox, `${id}.ack.json`);
	try {
		writeJsonAtomic(path, { ...message, id, at: new Date().toISOString() } satisfies MailMessage);
	} catch (error) {
		return { delivered: false, reason: `the mailbox could not be written (${(error as Error).message})` };
	}
	const waitAck = async (until: number): Promise<Ack | "dead" | undefined> => {
		while (Date.now() < until) {
			const ack = readAck(ackPath, mailbox);
			if (ack) return ack;
			if (!processAlive(pid)) return readAck(ackPath, mailbox) ?? "dead";
			await new Promise((r) => setTimeout(r, POLL_MS));
		}
		return readAck(ackPath, mailbox);
	};
	let ack = await waitAck(Date.now() + timeoutMs);
	if (ack === undefined) {
		try {
			renameSync(path, `${path}.withdrawn`);
			rmSync(`${path}.withdrawn`, { force: true });
			return {
				delivered: false,
				reason: `the session did not take the message within ${Math.round(timeoutMs / 1000)}s`,
			};
		} catch {
			ack = await waitAck(Date.now() + LATE_ACK_MS); // claimed meanwhile: its answer may be on the way
		}
	}
	rmSync(path, { force: true });
	rmSync(ackPath, { force: true });
	if (ack === "dead") return { delivered: false, reason: "the session ended before it acknowledged the message" };
	return ack ?? { delivered: false, reason: "the session took the message but did not acknowledge it" };
}

function readAck(path: string, root: string): Ack | undefined {
	const o = readJsonIn(path, root, 16 * 1024);
	if (!o || typeof o.delivered !== "boolean") return undefined;
	return { delivered: o.delivered, ...(typeof o.reason === "string" ? { reason: o.reason } : {}) };
}

/** The messages waiting in a mailbox, each claimed (renamed) so no other reader gets it. */
export function takeMail(mailbox: string): MailMessage[] {
	let names: string[];
	try {
		names = readdirSync(mailbox).filter((n) => n.endsWith(".msg.json"));
	} catch {
		return [];
	}
	const out: MailMessage[] = [];
	for (const name of names) {
		const id = name.slice(0, -".msg.json".length);
		if (!ID.test(id)) continue;
		const claimed = join(mailbox, `${id}.taken`);
		try {
			renameSync(join(mailbox, name), claimed);
		} catch {
			continue; // withdrawn or claimed by another reader
		}
		const o = readJsonIn(claimed, mailbox, 64 * 1024);
		rmSync(claimed, { force: true });
		if (o && typeof o.text === "string" && o.text.trim())
			out.push({ id, text: o.text, reason: typeof o.reason === "string" ? o.reason : "", at: String(o.at ?? "") });
		else answerMail(mailbox, id, { delivered: false, reason: "the message was empty or malformed" });
	}
	return out;
}

export function answerMail(mailbox: string, id: string, ack: Ack): void {
	if (!ID.test(id)) return;
	try {
		writeJsonAtomic(join(mailbox, `${id}.ack.json`), ack);
	} catch {
		// the fleet stopped waiting and the folder is gone: it reports the message undelivered
	}
}
