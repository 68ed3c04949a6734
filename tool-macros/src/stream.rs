//! `stream!` and `try_stream!`: a generator body becomes an async block
//! driven by `tool_runtime`'s stream type.
//!
//! The body is rewritten token by token, without parsing it:
//!
//! - `yield value` becomes `sender.send(value).await` (`Ok(value)` in
//!   `try_stream!`), where `sender` is a name the body cannot see;
//! - `for await pattern in stream { .. }` becomes a loop over the stream's
//!   items;
//! - nothing is rewritten inside a closure, an async block, an item (`fn`,
//!   `impl`, `trait`, `mod`) or a nested `stream!`/`try_stream!`: a `yield`
//!   there belongs to something else.
//!
//! In `try_stream!`, and in `stream!` when the body uses `?`, the body runs
//! in an inner async block returning `Result<(), E>`: an `Err` from `?`
//! (converted with `From`, as `?` does) is yielded as the last item, and a
//! bare `return` ends the stream.

use proc_macro2::{Delimiter, Group, Ident, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};

/// Expands `stream!` (`is_try` false) or `try_stream!`. The first token
/// tree is a group holding the path of the runtime crate.
pub fn expand(input: TokenStream, is_try: bool) -> TokenStream {
    let mut input = input.into_iter();
    let krate = match input.next() {
        Some(TokenTree::Group(group)) => group.stream(),
        _ => {
            return quote! {
                ::core::compile_error!("use this macro through `tool_runtime::stream!`")
            };
        }
    };
    let body: Vec<TokenTree> = input.collect();

    let sender = Ident::new("__tool_stream_sender", Span::mixed_site());
    let mut rewriter = Rewriter {
        sender: &sender,
        krate: &krate,
        is_try,
        yielded: false,
        uses_try: false,
    };
    if !is_try {
        // Whether the body uses `?` decides how a bare `return` is written,
        // and a `return` may come before the first `?`.
        let mut scan = rewriter;
        scan.rewrite(body.clone());
        rewriter.uses_try = scan.uses_try;
    }
    let body = rewriter.rewrite(body);

    let ok = quote!(::core::result::Result::Ok);
    let fallible = is_try || rewriter.uses_try;
    // With no `yield`, the item type would be unknown: the stream yields
    // `()` (`Ok(())` in `try_stream!`), as async-stream's does.
    let placeholder = (!rewriter.yielded).then(|| {
        let value = if is_try { quote!(#ok(())) } else { quote!(()) };
        quote! {
            if false {
                #sender.send(#value).await;
            }
        }
    });
    let generator = if fallible {
        let result = Ident::new("__tool_stream_result", Span::mixed_site());
        let error = Ident::new("__tool_stream_error", Span::mixed_site());
        quote! {
            async move {
                #placeholder
                let #result: ::core::result::Result<(), _> = async {
                    { #body }
                    // After a body that never ends (`loop { yield .. }`).
                    #[allow(unreachable_code)]
                    let #result = #ok(());
                    #result
                }
                .await;
                if let ::core::result::Result::Err(#error) = #result {
                    #sender.send(::core::result::Result::Err(#error)).await;
                }
            }
        }
    } else {
        quote! {
            async move {
                #placeholder
                #body
            }
        }
    };
    let slot = Ident::new("__tool_stream_slot", Span::mixed_site());
    quote! {
        {
            let (mut #sender, #slot) = #krate::__private::stream_channel();
            #krate::__private::GeneratorStream::new(#slot, #generator)
        }
    }
}

#[derive(Clone, Copy)]
struct Rewriter<'a> {
    sender: &'a Ident,
    krate: &'a TokenStream,
    is_try: bool,
    /// A `yield` was rewritten.
    yielded: bool,
    /// A `?` was seen where it returns from the generator.
    uses_try: bool,
}

fn is_ident(tree: Option<&TokenTree>, name: &str) -> bool {
    matches!(tree, Some(TokenTree::Ident(ident)) if ident == name)
}

fn is_punct(tree: Option<&TokenTree>, ch: char) -> bool {
    matches!(tree, Some(TokenTree::Punct(punct)) if punct.as_char() == ch)
}

fn is_brace(tree: Option<&TokenTree>) -> bool {
    matches!(tree, Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Brace)
}

/// Whether a `|` after `prev` starts a closure rather than being a binary
/// operator or a pattern's alternative (which follow an operand).
fn starts_closure(prev: Option<&TokenTree>) -> bool {
    match prev {
        None => true,
        Some(TokenTree::Punct(punct)) => punct.as_char() != '?',
        Some(TokenTree::Ident(ident)) => ["move", "return", "break", "yield", "in", "else"]
            .iter()
            .any(|kw| ident == kw),
        Some(_) => false,
    }
}

/// The end (exclusive) of the expression starting at `start`: the next `,`
/// or `;` at this level, or the end.
fn expression_end(tokens: &[TokenTree], start: usize) -> usize {
    tokens[start..]
        .iter()
        .position(|tree| is_punct(Some(tree), ',') || is_punct(Some(tree), ';'))
        .map_or(tokens.len(), |offset| start + offset)
}

/// The end (exclusive) of a closure whose first `|` is at `start`, or
/// `None` when this does not look like one.
fn closure_end(tokens: &[TokenTree], start: usize) -> Option<usize> {
    let close = start
        + 1
        + tokens[start + 1..]
            .iter()
            .position(|tree| is_punct(Some(tree), '|'))?;
    let mut at = close + 1;
    if is_punct(tokens.get(at), '-') && is_punct(tokens.get(at + 1), '>') {
        // `-> Type { body }`: the body is the first block.
        at += tokens[at..].iter().position(|tree| is_brace(Some(tree)))?;
        return Some(at + 1);
    }
    Some(expression_end(tokens, at))
}

impl Rewriter<'_> {
    fn rewrite_stream(&mut self, tokens: TokenStream) -> TokenStream {
        self.rewrite(tokens.into_iter().collect())
    }

    fn rewrite(&mut self, tokens: Vec<TokenTree>) -> TokenStream {
        let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.len());
        let mut i = 0;
        while i < tokens.len() {
            let tree = &tokens[i];
            let prev = i.checked_sub(1).map(|at| &tokens[at]);
            match tree {
                TokenTree::Ident(ident) if ident == "yield" => {
                    let end = expression_end(&tokens, i + 1);
                    let value = self.rewrite(tokens[i + 1..end].to_vec());
                    out.extend(self.send(ident.span(), value));
                    self.yielded = true;
                    i = end;
                }
                TokenTree::Ident(ident)
                    if ident == "for" && is_ident(tokens.get(i + 1), "await") =>
                {
                    match self.for_await(&tokens, i, &mut out) {
                        Some(end) => i = end,
                        None => {
                            out.push(tree.clone());
                            i += 1;
                        }
                    }
                }
                TokenTree::Ident(ident) if ident == "return" && self.fallible_returns() => {
                    out.push(tree.clone());
                    let next = tokens.get(i + 1);
                    if next.is_none() || is_punct(next, ';') || is_punct(next, ',') {
                        let ok = quote_spanned!(ident.span()=> ::core::result::Result::Ok(()));
                        out.extend(ok);
                    }
                    i += 1;
                }
                // Async blocks and closures: `async {`, `async move {`,
                // `async |..|`, `async move |..|`.
                TokenTree::Ident(ident) if ident == "async" => {
                    let mut at = i + 1;
                    if is_ident(tokens.get(at), "move") {
                        at += 1;
                    }
                    let end = if is_brace(tokens.get(at)) {
                        at + 1
                    } else if is_punct(tokens.get(at), '|') {
                        closure_end(&tokens, at).unwrap_or(at)
                    } else {
                        // `async fn`: the item rule below skips it.
                        i + 1
                    };
                    out.extend(tokens[i..end].iter().cloned());
                    i = end;
                }
                TokenTree::Punct(punct)
                    if punct.as_char() == '|'
                        && (starts_closure(prev) || is_ident(prev, "move")) =>
                {
                    let end = closure_end(&tokens, i).unwrap_or(i + 1);
                    out.extend(tokens[i..end].iter().cloned());
                    i = end;
                }
                // Items (`fn name`, `impl`, `trait`, `mod`, `struct`, `enum`,
                // `type`), up to their body or `;`.
                TokenTree::Ident(ident)
                    if (ident == "fn"
                        && matches!(tokens.get(i + 1), Some(TokenTree::Ident(_))))
                        || ["impl", "trait", "mod", "struct", "enum", "type"]
                            .iter()
                            .any(|keyword| ident == keyword) =>
                {
                    let end = tokens[i..]
                        .iter()
                        .position(|tree| is_brace(Some(tree)) || is_punct(Some(tree), ';'))
                        .map_or(tokens.len(), |offset| i + offset + 1);
                    out.extend(tokens[i..end].iter().cloned());
                    i = end;
                }
                // A nested stream rewrites its own body.
                TokenTree::Ident(ident)
                    if (ident == "stream" || ident == "try_stream")
                        && is_punct(tokens.get(i + 1), '!')
                        && matches!(tokens.get(i + 2), Some(TokenTree::Group(_))) =>
                {
                    out.extend(tokens[i..i + 3].iter().cloned());
                    i += 3;
                }
                TokenTree::Punct(punct) if punct.as_char() == '?' => {
                    self.uses_try = true;
                    out.push(tree.clone());
                    i += 1;
                }
                TokenTree::Group(group) => {
                    let mut new =
                        Group::new(group.delimiter(), self.rewrite_stream(group.stream()));
                    new.set_span(group.span());
                    out.push(TokenTree::Group(new));
                    i += 1;
                }
                _ => {
                    out.push(tree.clone());
                    i += 1;
                }
            }
        }
        out.into_iter().collect()
    }

    /// Whether a bare `return` must give the inner block's `Ok(())`. Only
    /// known for sure in `try_stream!`; in `stream!` a `?` may come later,
    /// so `stream!` bodies are scanned for `?` first (see `expand`).
    fn fallible_returns(&self) -> bool {
        self.is_try || self.uses_try
    }

    /// `sender.send(value).await`, the value wrapped in `Ok` in
    /// `try_stream!`; an empty value is `()`.
    fn send(&self, span: Span, value: TokenStream) -> TokenStream {
        let sender = self.sender;
        let value = if value.is_empty() { quote!(()) } else { value };
        let value = if self.is_try {
            quote_spanned!(span=> ::core::result::Result::Ok(#value))
        } else {
            value
        };
        let mut dot = Punct::new('.', Spacing::Alone);
        dot.set_span(span);
        let send = Ident::new("send", span);
        let await_ = Ident::new("await", span);
        let mut args = Group::new(Delimiter::Parenthesis, value);
        args.set_span(span);
        let mut out = quote!(#sender);
        out.extend([
            TokenTree::Punct(dot.clone()),
            TokenTree::Ident(send),
            TokenTree::Group(args),
            TokenTree::Punct(dot),
            TokenTree::Ident(await_),
        ]);
        out
    }

    /// `for await pattern in stream { body }` at `start` (with any label
    /// already in `out`), as a loop calling the runtime's `next`. Returns
    /// the end of the loop, or `None` when it does not have that shape.
    fn for_await(
        &mut self,
        tokens: &[TokenTree],
        start: usize,
        out: &mut Vec<TokenTree>,
    ) -> Option<usize> {
        let in_at = start
            + 2
            + tokens[start + 2..]
                .iter()
                .position(|tree| is_ident(Some(tree), "in"))?;
        let body_at = in_at
            + 1
            + tokens[in_at + 1..]
                .iter()
                .position(|tree| is_brace(Some(tree)))?;
        let TokenTree::Group(body) = &tokens[body_at] else {
            return None;
        };
        // A label, `'name:`, is moved onto the loop.
        let n = out.len();
        let label: Vec<TokenTree> = if n >= 3
            && is_punct(out.get(n - 1), ':')
            && matches!(out.get(n - 2), Some(TokenTree::Ident(_)))
            && is_punct(out.get(n - 3), '\'')
        {
            out.split_off(n - 3)
        } else {
            Vec::new()
        };
        let pattern: TokenStream = tokens[start + 2..in_at].iter().cloned().collect();
        let stream = self.rewrite(tokens[in_at + 1..body_at].to_vec());
        let body = self.rewrite_stream(body.stream());
        let krate = self.krate;
        let pinned = Ident::new("__tool_stream_pinned", Span::mixed_site());
        let item = Ident::new("__tool_stream_item", Span::mixed_site());
        let label: TokenStream = label.into_iter().collect();
        out.extend(quote! {
            {
                let mut #pinned = ::core::pin::pin!(#stream);
                #label loop {
                    let #pattern = match #krate::__private::stream_next(#pinned.as_mut()).await {
                        ::core::option::Option::Some(#item) => #item,
                        ::core::option::Option::None => break,
                    };
                    #body
                }
            }
        });
        Some(body_at + 1)
    }
}
