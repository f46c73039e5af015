import { z } from 'zod';
import { postOpenAiJson } from './openai-compatible.ts';

/** Describes an image in one sentence of alt text. */
export interface ImageCaptioner {
  /** `http:<model>`, stored with every caption */
  readonly modelId: string;
  /**
   * @param jpeg image bytes (JPEG, longest edge ≤ 1024 px)
   * @param hint file-name words, recognised text and the file's own description (its embedded caption:
   *   names of people, places and species a picture cannot show), to help the model name what it sees
   * @returns a plain-text caption of at most 250 characters
   * @throws Error on HTTP failure, timeout or an unexpected response shape
   */
  caption(jpeg: Buffer, hint: { name: string; ocrText: string | null; description?: string | null }, signal?: AbortSignal): Promise<string>;
}

const ChatResponseSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.union([z.string(), z.null()]) }) })).min(1),
});

const PROMPT =
  'Write alt text for this image for a web shop: one plain sentence of at most 25 words naming the main subject, ' +
  'setting and notable colours. No "image of", no quotes.';

/**
 * Image captioner over an OpenAI-compatible `POST {baseUrl}/chat/completions` with an image part
 * (OpenAI, Ollama, vLLM, LM Studio). Wire format:
 * https://platform.openai.com/docs/api-reference/chat/create — `messages[0].content` is
 * `[{type:"text"}, {type:"image_url", image_url:{url:"data:image/jpeg;base64,…"}}]`; the answer is
 * `choices[0].message.content`. Responses are zod-parsed.
 */
export function createHttpCaptioner(opts: { baseUrl: string; apiKey: string | null; model: string; timeoutMs: number }): ImageCaptioner {
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return {
    modelId: `http:${opts.model}`,
    async caption(jpeg, hint, signal) {
      const context = [
        hint.name && `File name words: ${hint.name}.`,
        hint.ocrText && `Text found in the image: ${hint.ocrText.slice(0, 200)}.`,
        hint.description && `The file's own description, which may name what the picture cannot show: ${hint.description.slice(0, 250)}`,
      ]
        .filter(Boolean)
        .join(' ');
      const request = {
        model: opts.model,
        max_tokens: 80,
        temperature: 0,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: context ? `${PROMPT} ${context}` : PROMPT },
              { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${jpeg.toString('base64')}` } },
            ],
          },
        ],
      };
      const data = await postOpenAiJson(url, request, ChatResponseSchema, {
        label: 'vision',
        apiKey: opts.apiKey,
        timeoutMs: opts.timeoutMs,
        signal,
      });
      const caption = (data.choices[0]!.message.content ?? '')
        .replace(/\s+/g, ' ')
        .replace(/^["']|["']$/g, '')
        .trim();
      if (!caption) throw new Error(`vision endpoint ${url} returned an empty caption`);
      return caption.length > 250 ? `${caption.slice(0, 249)}…` : caption;
    },
  };
}
