import { memo } from 'react';
import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';

/**
 * Model output as markdown. Raw HTML is not rendered (react-markdown escapes it), links open
 * outside the app, and images are not fetched: nothing a model writes can load content.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        components={{
          a: ({ href, children }) => (
            <a href={href} target="_blank" rel="noreferrer noopener">
              {children}
            </a>
          ),
          img: ({ alt }) => <span className="muted">[image: {alt ?? 'no description'}]</span>,
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
});
