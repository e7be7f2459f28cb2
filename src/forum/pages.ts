/** The forum's pages and assets, embedded as text at build time: nothing fetched at run time. */
import boardHtml from "./assets/board.html" with { type: "text" };
import css from "./assets/forum.css" with { type: "text" };
import boardJs from "./assets/board.js" with { type: "text" };
import cardsJs from "./assets/cards.js" with { type: "text" };
import js from "./assets/forum.js" with { type: "text" };
import reviewHtml from "./assets/review.html" with { type: "text" };

export const ASSETS = {
  // Bun types an .html import as a bundle; imported as text it is the file's contents.
  "board.html": { body: boardHtml as unknown as string, type: "text/html; charset=utf-8" },
  "review.html": { body: reviewHtml as unknown as string, type: "text/html; charset=utf-8" },
  "forum.css": { body: css, type: "text/css; charset=utf-8" },
  "forum.js": { body: js, type: "text/javascript; charset=utf-8" },
  "board.js": { body: boardJs, type: "text/javascript; charset=utf-8" },
  "cards.js": { body: cardsJs, type: "text/javascript; charset=utf-8" },
} as const;
