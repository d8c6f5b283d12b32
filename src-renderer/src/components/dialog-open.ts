/** Whether a modal dialog is open: Escape and focus belong to it then, not to the composer or the page. */
export const dialogOpen = () => document.querySelector('[role="dialog"], [role="alertdialog"]') !== null;
