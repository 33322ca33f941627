// Data fences: what the repository, the agent or a child wrote is put between markers carrying
// a random nonce, so text that claims to be instructions cannot close the fence early.

export function dataFence(nonce: string, label: string): { open: string; close: string } {
	return { open: `<<<DATA ${nonce}: ${label}>>>`, close: `<<<END DATA ${nonce}>>>` };
}
