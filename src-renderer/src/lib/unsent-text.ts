/**
 * What is left in a text box (the composer, a commit message, a comment, an answer) once `sent`
 * (the box as it was when sent) has been taken: nothing when the box still holds just that, what
 * was typed after it when the box starts with it, and the whole box otherwise (it was edited:
 * the user decides what of it goes).
 */
export function unsentText(box: string, sent: string): string {
  if (box.trim() === sent.trim()) return '';
  return box.startsWith(sent) ? box.slice(sent.length).trimStart() : box;
}
