// The board cards' script is embedded in the binary as text (see ../pages.ts).
declare const text: string;
export default text;
