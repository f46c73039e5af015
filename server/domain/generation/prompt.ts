/**
 * The text prompt sent to diffusion providers: the caller's prompt plus the structured intent of spec
 * §4.3 (style, purpose, brand colours and tone, transparency), so remote models see the same request
 * the local provider interprets. Pure.
 */

const PURPOSE_TEXT: Record<string, string> = {
  hero_bg: 'a hero section background (leave calm space for headline text)',
  product_lifestyle: 'a product lifestyle image',
  texture_fill: 'a seamless texture fill',
  decorative_element: 'a decorative element',
  section_bg: 'a page section background (low detail, leaves room for content)',
  card_bg: 'a card background',
  pattern_tile: 'a seamless repeating pattern tile',
  product_composite: 'a product composite: keep the product from the reference image unchanged and place it as described',
};

export interface PromptIntent {
  prompt: string;
  style: string;
  purpose: string;
  brandColors: string[];
  brandTone: string | undefined;
  transparent: boolean;
  referenceCount: number;
  hasMask: boolean;
}

/** Compose the provider prompt. @returns the caller's prompt followed by one line of constraints */
export function composePrompt(i: PromptIntent): string {
  const parts = [`Style: ${i.style.replace('_', ' ')}.`, `Use: ${PURPOSE_TEXT[i.purpose] ?? i.purpose}.`];
  if (i.brandColors.length) parts.push(`Brand colours: ${i.brandColors.join(', ')}.`);
  if (i.brandTone) parts.push(`Tone: ${i.brandTone}.`);
  if (i.transparent) parts.push('Transparent background.');
  if (i.referenceCount > 1) parts.push(`Reference images are given in order 1–${i.referenceCount}; the last one is the background.`);
  if (i.hasMask) parts.push('The mask image (last) marks in white the only area to change.');
  return `${i.prompt.trim()}\n\n${parts.join(' ')}`;
}
