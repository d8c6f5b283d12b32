import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { connect } from './bridge';
import { restCaretWhenIdle } from './lib/caret-rest';
import { ClientContext, createAppStore, StoreContext } from './store';
import { startApp } from './store/start';
import './styles.css';

const client = connect();
const store = createAppStore(client);
// The first reads leave before React's first render (store/start.ts).
startApp(store, client);
// A focused field's caret blinks for ever otherwise: an idle page would repaint twice a second.
restCaretWhenIdle(document);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ClientContext.Provider value={client}>
      <StoreContext.Provider value={store}>
        <App />
      </StoreContext.Provider>
    </ClientContext.Provider>
  </StrictMode>,
);
