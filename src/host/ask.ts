// Asking the user whether to let something lower the watchdog's oversight: a select whose
// first choice, the one Enter takes, keeps the watchdog as it is; only an explicit yes is a yes
// (Escape, a closed dialog or a failed UI all keep it).

/** A select dialog (Pi's `ctx.ui.select`): the picked choice, or undefined when dismissed. */
export type Chooser = (title: string, choices: string[]) => Promise<string | undefined>;

export const KEEP_CHOICE = "No, keep the watchdog as it is";
export const LOWER_CHOICE = "Yes, lower the watchdog's oversight as asked";

export async function askToLower(ask: Chooser, question: string, details: string): Promise<boolean> {
	try {
		return (await ask(`${question}\n\n${details}`, [KEEP_CHOICE, LOWER_CHOICE])) === LOWER_CHOICE;
	} catch {
		return false;
	}
}
