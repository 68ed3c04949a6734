//! The items the attributes go on, read leniently: a function's body is
//! kept as tokens, unparsed, like `tracing-attributes` does. rustc parses an
//! item before it hands it to a macro and reports a syntax error inside a
//! body itself; keeping the body as tokens lets the macro expand the tool
//! all the same, so that error is the only one the user sees.
//!
//! Also here: what the emitted function loses and gains (its parameters'
//! `#[tool(...)]` and doc attributes, its docs' `# Arguments` section), and
//! what is left of an item that does not parse at all.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::{ToTokens, TokenStreamExt, quote};
use syn::parse::discouraged::Speculative;
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, ImplItem, ItemImpl, Signature, Token, Visibility};

/// A function whose body may not parse.
pub struct MaybeFn {
    /// Outer attributes, doc comments included.
    pub attrs: Vec<Attribute>,
    /// Its visibility.
    pub vis: Visibility,
    /// `default`, in an impl block.
    pub defaultness: Option<Token![default]>,
    /// Its signature.
    pub sig: Signature,
    /// Its body, as written.
    pub body: Group,
}

impl MaybeFn {
    /// Whether it is marked `#[tool]`.
    pub fn is_tool(&self) -> bool {
        self.attrs.iter().any(|attr| attr.path().is_ident("tool"))
    }

    /// Removes `#[tool(...)]` and doc attributes from the parameters: rustc
    /// rejects doc comments there, and the macro has read them.
    pub fn strip_param_attributes(&mut self) {
        for input in &mut self.sig.inputs {
            if let syn::FnArg::Typed(typed) = input {
                typed
                    .attrs
                    .retain(|attr| !attr.path().is_ident("tool") && !attr.path().is_ident("doc"));
            }
        }
    }

    /// Appends `#[doc = ...]` lines to the function's attributes.
    pub fn append_docs(&mut self, lines: &[String]) {
        for line in lines {
            self.attrs.push(syn::parse_quote!(#[doc = #line]));
        }
    }
}

impl Parse for MaybeFn {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis = input.parse()?;
        let defaultness = input.parse()?;
        let sig = input.parse()?;
        let body: Group = input.parse()?;
        if body.delimiter() != Delimiter::Brace {
            return Err(syn::Error::new(body.span(), "expected the function's body"));
        }
        Ok(Self {
            attrs,
            vis,
            defaultness,
            sig,
            body,
        })
    }
}

impl ToTokens for MaybeFn {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.append_all(&self.attrs);
        self.vis.to_tokens(tokens);
        self.defaultness.to_tokens(tokens);
        self.sig.to_tokens(tokens);
        self.body.to_tokens(tokens);
    }
}

/// An impl block whose methods' bodies may not parse.
pub struct ImplBlock {
    /// The block with no items, for its type, trait and generics.
    pub header: ItemImpl,
    /// The tokens before the body, as written.
    header_tokens: TokenStream,
    /// The body's braces, for their span.
    body: Group,
    /// `#![...]` attributes inside the body.
    inner_attrs: Vec<Attribute>,
    /// What the body holds.
    pub members: Vec<ImplMember>,
}

/// One item of an impl block.
#[allow(clippy::large_enum_variant)] // a few per block, at compile time
pub enum ImplMember {
    /// A method or associated function.
    Fn(MaybeFn),
    /// Anything else, as syn reads it.
    Other(ImplItem),
}

impl ImplBlock {
    /// Reads an impl block: the tokens before the body as syn's `ItemImpl`
    /// with no items, then each item of the body.
    pub fn parse(tokens: TokenStream) -> syn::Result<Self> {
        let mut trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
        let body = match trees.pop() {
            Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Brace => group,
            // Not an impl block at all: let syn say what it expected.
            _ => {
                return match syn::parse2::<ItemImpl>(tokens) {
                    Err(error) => Err(error),
                    Ok(_) => unreachable!("an impl block ends with its body"),
                };
            }
        };
        let header_tokens: TokenStream = trees.into_iter().collect();
        let header = syn::parse2::<ItemImpl>(quote!(#header_tokens {}))?;
        let (inner_attrs, members) = syn::parse::Parser::parse2(
            |input: ParseStream| {
                let inner_attrs = input.call(Attribute::parse_inner)?;
                let mut members = Vec::new();
                while !input.is_empty() {
                    members.push(input.parse()?);
                }
                Ok((inner_attrs, members))
            },
            body.stream(),
        )?;
        Ok(Self {
            header,
            header_tokens,
            body,
            inner_attrs,
            members,
        })
    }
}

impl ImplBlock {
    /// The methods marked `#[tool]`, in order.
    pub fn tool_methods(&self) -> impl Iterator<Item = &MaybeFn> {
        self.members.iter().filter_map(|member| match member {
            ImplMember::Fn(method) if method.is_tool() => Some(method),
            _ => None,
        })
    }

    /// [`tool_methods`](Self::tool_methods), to change.
    pub fn tool_methods_mut(&mut self) -> impl Iterator<Item = &mut MaybeFn> {
        self.members.iter_mut().filter_map(|member| match member {
            ImplMember::Fn(method) if method.is_tool() => Some(method),
            _ => None,
        })
    }
}

impl Parse for ImplMember {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let fork = input.fork();
        if let Ok(function) = fork.parse::<MaybeFn>() {
            input.advance_to(&fork);
            return Ok(ImplMember::Fn(function));
        }
        input.parse().map(ImplMember::Other)
    }
}

impl ToTokens for ImplBlock {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let mut body = TokenStream::new();
        body.append_all(&self.inner_attrs);
        for member in &self.members {
            match member {
                ImplMember::Fn(function) => function.to_tokens(&mut body),
                ImplMember::Other(item) => item.to_tokens(&mut body),
            }
        }
        let mut group = Group::new(Delimiter::Brace, body);
        group.set_span(self.body.span());
        tokens.extend(self.header_tokens.clone());
        tokens.append(group);
    }
}

/// What is left of an item that does not parse even as the item it is:
/// rustc has reported the syntax error already, so the macro adds none,
/// and removes its own attributes (`#[tool]` on the items of an impl
/// block, `#[tool(...)]` and doc comments on parameters), which would
/// otherwise each add an error of their own.
pub fn without_tool_attributes(tokens: TokenStream) -> TokenStream {
    strip(tokens, Level::Item)
}

#[derive(Clone, Copy, PartialEq)]
enum Level {
    /// Where items are: the top level, and an impl block's body.
    Item,
    /// A parameter list.
    Params,
}

fn strip(tokens: TokenStream, level: Level) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    let mut after_fn = false;
    let mut i = 0;
    while i < trees.len() {
        let tree = &trees[i];
        if let (TokenTree::Punct(pound), Some(TokenTree::Group(attr))) = (tree, trees.get(i + 1))
            && pound.as_char() == '#'
            && attr.delimiter() == Delimiter::Bracket
            && is_ours(attr, level)
        {
            i += 2;
            continue;
        }
        let tree = match tree {
            TokenTree::Ident(ident) if level == Level::Item && ident == "fn" => {
                after_fn = true;
                tree.clone()
            }
            TokenTree::Group(group)
                if level == Level::Item
                    && after_fn
                    && group.delimiter() == Delimiter::Parenthesis =>
            {
                after_fn = false;
                regroup(group, strip(group.stream(), Level::Params))
            }
            TokenTree::Group(group)
                if level == Level::Item && group.delimiter() == Delimiter::Brace =>
            {
                after_fn = false;
                regroup(group, strip(group.stream(), Level::Item))
            }
            other => other.clone(),
        };
        out.push(tree);
        i += 1;
    }
    out.into_iter().collect()
}

/// Whether the bracketed attribute `[...]` is one the macro would have
/// removed at this level.
fn is_ours(attr: &Group, level: Level) -> bool {
    match attr.stream().into_iter().next() {
        Some(TokenTree::Ident(name)) => name == "tool" || (level == Level::Params && name == "doc"),
        _ => false,
    }
}

/// `original` with `stream` inside. A group whose contents did not change
/// is kept as it is: a new one cannot keep the spans of both delimiters,
/// and rustc, parsing the tokens again, would report the same syntax error
/// a second time at a wider span.
fn regroup(original: &Group, stream: TokenStream) -> TokenTree {
    if stream.to_string() == original.stream().to_string() {
        return TokenTree::Group(original.clone());
    }
    let mut group = Group::new(original.delimiter(), stream);
    group.set_span(original.span());
    TokenTree::Group(group)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_a_body_that_does_not_parse() {
        let item: MaybeFn = syn::parse2(quote! {
            /// Doc.
            pub async fn f(x: u32) -> u32 { let y = ; x }
        })
        .unwrap();
        assert_eq!(item.sig.ident, "f");
        assert!(item.body.to_string().contains("let y ="));
    }

    #[test]
    fn reads_an_impl_block_with_a_broken_method() {
        let block = ImplBlock::parse(quote! {
            impl Store {
                const N: u32 = 1;
                /// Echoes.
                #[tool]
                fn echo(&self, value: String) -> String { let x = ; value }
            }
        })
        .unwrap();
        assert_eq!(block.members.len(), 2);
        assert!(matches!(block.members[0], ImplMember::Other(_)));
        assert!(matches!(block.members[1], ImplMember::Fn(_)));
        let printed = block.to_token_stream().to_string();
        assert!(printed.starts_with("impl Store {"), "{printed}");
        assert!(printed.contains("let x = ;"), "{printed}");
    }

    #[test]
    fn a_struct_is_not_an_impl_block() {
        let error = ImplBlock::parse(quote!(
            struct Store {
                items: Vec<String>,
            }
        ))
        .err()
        .unwrap();
        assert_eq!(error.to_string(), "expected `impl`");
    }

    #[test]
    fn removes_only_the_macros_attributes() {
        let stripped = without_tool_attributes(quote! {
            impl Store {
                /// Kept.
                #[tool(name = "x")]
                #[inline]
                fn f(&self, #[tool(default = 1)] /// Gone.
                    a: u32, b: ) -> u32 { a }
            }
        });
        let printed = stripped.to_string();
        assert!(!printed.contains("tool"), "{printed}");
        assert!(!printed.contains("Gone"), "{printed}");
        assert!(printed.contains("Kept"), "{printed}");
        assert!(printed.contains("inline"), "{printed}");
    }
}
