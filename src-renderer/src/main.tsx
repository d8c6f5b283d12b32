import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { connect } from './bridge';
import { ClientContext, createAppStore, StoreContext } from './store';
import './styles.css';

const client = connect();
const store = createAppStore(client);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ClientContext.Provider value={client}>
      <StoreContext.Provider value={store}>
        <App />
      </StoreContext.Provider>
    </ClientContext.Provider>
  </StrictMode>,
);
