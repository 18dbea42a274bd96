/** Whether the text holds an ASCII control character other than newline (refused in commit messages). */
export function hasControlCharacterExceptNewline(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if ((code < 0x20 && code !== 0x0a) || code === 0x7f) return true;
  }
  return false;
}
